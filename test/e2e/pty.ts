// Runs the built exectl on a real pseudo-terminal (util-linux `script`), as a person would.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { REPO } from './harness.js';

const GIVE_UP_MS = 20_000;

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * Runs exectl with stdin, stdout and stderr on one pty of `cols` columns; returns the exit code
 * and the screen.
 */
export async function onTerminal(
  home: string,
  args: readonly string[],
  env: Record<string, string> = {},
  cols = 100,
): Promise<{ code: number | null; screen: string }> {
  const exec = [process.execPath, join(REPO, 'bin', 'exectl.cjs'), ...args].map(quote).join(' ');
  // `script` without a terminal of its own makes a 0x0 pty: give it a real size.
  const command = `stty cols ${cols} rows 30 && exec ${exec}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TERM: 'xterm', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const giveUp = setTimeout(() => child.kill(), GIVE_UP_MS);
  let screen = '';
  child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString('utf8')));
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(giveUp);
  return { code, screen };
}

/** What the terminal shows for `text` (the pty turns each \n into \r\n). */
export const shown = (text: string): string => text.replaceAll('\n', '\r\n');
