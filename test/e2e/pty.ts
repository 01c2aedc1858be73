// Runs the built exectl on a real pseudo-terminal (util-linux `script`), as a person would.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { REPO } from './harness.js';

const GIVE_UP_MS = 20_000;

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/** What to type once the screen shows `after` (e.g. the answer to a question). */
export interface TypedReply {
  after: string;
  type: string;
}

/** How a test takes part while exectl runs. */
export interface TerminalPlay {
  /** Types `reply.type` once `reply.after` is on the screen. */
  reply?: TypedReply;
  /** Sees the screen so far after each chunk (to release a held answer, say). */
  onScreen?: (screen: string) => void;
  /** The terminal's width. */
  cols?: number;
}

/**
 * Runs exectl with stdin, stdout and stderr on one pty of `cols` columns (100 unless the play
 * says); returns the exit code and the screen.
 * The spinner is off (EXECTL_SPINNER=off) unless `env` turns it on: whether it appears depends
 * on how busy the machine is, so only the tests of the spinner show it, on a held answer.
 */
export async function onTerminal(
  home: string,
  args: readonly string[],
  env: Record<string, string> = {},
  { reply, onScreen, cols = 100 }: TerminalPlay = {},
): Promise<{ code: number | null; screen: string }> {
  const exec = [process.execPath, join(REPO, 'bin', 'exectl.cjs'), ...args].map(quote).join(' ');
  // `script` without a terminal of its own makes a 0x0 pty: give it a real size.
  const command = `stty cols ${cols} rows 30 && exec ${exec}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      TERM: 'xterm',
      EXECTL_SPINNER: 'off',
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const giveUp = setTimeout(() => child.kill(), GIVE_UP_MS);
  let screen = '';
  let typed = reply === undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString('utf8');
    onScreen?.(screen);
    if (!typed && screen.includes(reply!.after)) {
      typed = true;
      child.stdin.write(reply!.type);
    }
  });
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(giveUp);
  return { code, screen };
}

/** What the terminal shows for `text` (the pty turns each \n into \r\n). */
export const shown = (text: string): string => text.replaceAll('\n', '\r\n');
