// The width readable tables fit (SPEC §3 text views): the terminal's, read here because only
// cli/ reads the TTY.
import type { Writable } from 'node:stream';

/**
 * The columns of `stream` when it is a terminal of known size; undefined otherwise (a pipe or
 * a file: nothing is cut there, scripts read whole lines).
 */
export function terminalColumns(stream: Writable & { isTTY?: boolean }): number | undefined {
  if (stream.isTTY !== true) return undefined;
  const columns = (stream as { columns?: number }).columns ?? 0;
  return columns > 0 ? columns : undefined;
}
