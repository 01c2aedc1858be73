// Runs one command line for a button or a form: its outcome is announced in the page's
// status region, and `then` redraws what it changed.
import { ApiError, run } from './api.js';
import { announce } from './dom.js';
import { refusedCommand } from './refusals.js';

/** Runs `line`, announces `done` (or the server's error), then calls `then`. */
export async function act(line: string, done: string, then?: () => void): Promise<unknown> {
  announce(`Running: ${line}`);
  try {
    const data = await run(line);
    announce(done);
    then?.();
    return data;
  } catch (err) {
    const lacking = refusedCommand(err);
    const message =
      lacking !== undefined
        ? `This session may not run ${lacking}`
        : err instanceof ApiError
          ? `Error: ${err.message}`
          : String(err);
    announce(message, true);
    return undefined;
  }
}

/** Bytes as a short readable size. */
export function size(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let n = bytes;
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
}
