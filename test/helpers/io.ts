// Captured IO for the client's code run in-process: a process (for main) or a context (for a
// command) whose stdout and stderr are collected, never TTYs, and whose HOME leads nowhere.
import { Readable, Writable } from 'node:stream';
import { createContext, type CliContext, type CliProcess } from '../../src/cli/context.js';

export interface CapturedProcess {
  proc: CliProcess;
  /** Everything written to stdout so far, as UTF-8. */
  stdout(): string;
  /** Everything written to stderr so far, as UTF-8. */
  stderr(): string;
}

function sink(into: Buffer[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      into.push(Buffer.from(chunk));
      done();
    },
  });
}

/** A process with an empty stdin, captured stdout and stderr, and `env` over HOME=/nonexistent. */
export function capturedProcess(env: Record<string, string> = {}): CapturedProcess {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  return {
    proc: {
      stdin: Readable.from([]),
      stdout: sink(out),
      stderr: sink(err),
      env: { HOME: '/nonexistent', ...env },
    },
    stdout: () => Buffer.concat(out).toString('utf8'),
    stderr: () => Buffer.concat(err).toString('utf8'),
  };
}

/** A CliContext on a {@link capturedProcess} (no colours). */
export function capturedContext(
  env: Record<string, string> = {},
  opts: { quiet?: boolean } = {},
): { ctx: CliContext; stdout: () => string; stderr: () => string } {
  const { proc, stdout, stderr } = capturedProcess(env);
  return { ctx: createContext(proc, { color: false, quiet: opts.quiet }), stdout, stderr };
}
