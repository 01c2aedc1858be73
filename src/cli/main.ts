import { publicFailure } from '../errors.js';
import type { CliProcess } from './context.js';
import { oneLine } from './output.js';
import { runProgram } from './program.js';

/**
 * Runs exectl with `argv` (the words after the script name) and returns the exit code. This is
 * the one place where failures become exit codes: an ExectlError exits with its catalogue code
 * (src/errors.ts), anything else is an internal error (9). Each failure is one stderr line,
 * `exectl: <message> — <hint>`; the stack trace only with EXECTL_DEBUG=1.
 */
export async function main(argv: readonly string[], proc: CliProcess): Promise<number> {
  // A reader that goes away early (`exectl inspect ... | head -1`) is not exectl's failure.
  proc.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') proc.stderr.write(`exectl: cannot write the output (${err.code})\n`);
  });
  try {
    const outcome = await runProgram(argv, proc);
    return outcome === undefined ? 0 : outcome.exitCode;
  } catch (err) {
    const shown = publicFailure(err).error;
    const hint =
      shown.code === 'internal'
        ? ' — rerun with EXECTL_DEBUG=1 and report it'
        : shown.hint === undefined
          ? ''
          : ` — ${oneLine(shown.hint)}`;
    proc.stderr.write(`exectl: ${oneLine(shown.message)}${hint}\n`);
    if (proc.env.EXECTL_DEBUG === '1') {
      proc.stderr.write(`${err instanceof Error ? (err.stack ?? String(err)) : String(err)}\n`);
    }
    return shown.exitCode;
  }
}
