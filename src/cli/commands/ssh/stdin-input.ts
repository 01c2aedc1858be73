// Whether `exectl ssh` was given input on stdin (SPEC §6a last paragraph): /exec carries no
// stdin, so input must never be dropped silently; the command then goes over the VM's SSH
// server, or is refused naming the SSH destination that takes it.
import { fstatSync } from 'node:fs';
import type { CliContext } from '../../context.js';

/**
 * How long a pipe on stdin may stay silent before it counts as no input: a CI runner or a
 * parent process often leaves an idle pipe open as stdin and never writes or closes it.
 */
const PIPE_SILENCE_MS = 1000;

/**
 * True when stdin holds input: a file with bytes, or a pipe or socket whose first bytes arrive
 * within {@link PIPE_SILENCE_MS}. A terminal, `/dev/null`, a closed stdin, an empty file and a
 * pipe that ends at once are no input: the command runs as usual.
 */
export async function stdinHasInput(ctx: CliContext): Promise<boolean> {
  if (ctx.stdin.isTTY === true) return false;
  let stat;
  try {
    stat = fstatSync(0);
  } catch {
    return false; // closed
  }
  if (stat.isFile()) return stat.size > 0;
  if (!stat.isFIFO() && !stat.isSocket()) return false; // /dev/null and other devices
  const stdin = ctx.stdin;
  return new Promise((resolve) => {
    const done = (answer: boolean): void => {
      clearTimeout(timer);
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onEnd);
      stdin.pause();
      resolve(answer);
    };
    // The first bytes go back where they came from: they are the command's.
    const onData = (chunk: Buffer): void => {
      done(true);
      stdin.unshift(chunk);
    };
    const onEnd = (): void => done(false);
    const timer = setTimeout(() => done(false), PIPE_SILENCE_MS);
    stdin.once('data', onData);
    stdin.once('end', onEnd);
    stdin.once('error', onEnd);
  });
}
