// The one file of vm/ that starts host processes: every tool, launcher and helper the server
// runs goes through here, so what a child inherits (env, cwd, fds, session) is decided in one
// place and test/unit/architecture.test.ts can hold every other file to it.
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';

export type { ChildProcess };

/**
 * What one fd of a child gets: nothing (`/dev/null`), a pipe to the server, Node's IPC channel
 * (messages and sockets handed over), or an open descriptor of the server's.
 */
export type HostFd = 'ignore' | 'pipe' | 'ipc' | number;

/** How a host process starts. Nothing is inherited: env and stdio are always given. */
export interface HostSpawnOptions {
  /** The full environment of the child (never the server's own). */
  env: NodeJS.ProcessEnv;
  /** Working directory; the server's own when left out. */
  cwd?: string;
  /** Leader of a new session, so that its whole tree can be killed at once. */
  detached?: boolean;
  /** Every fd of the child from 0 on (extra ones become fd 3, 4, ...), or `'ignore'` for all. */
  stdio: 'ignore' | readonly HostFd[];
  /** Kills the child (SIGTERM) and fails its start with an AbortError once aborted. */
  signal?: AbortSignal;
}

/**
 * Starts `file` with `args` as a host process and hands back the child, for the long-lived
 * ones (init launchers, door helpers, freeze holders) whose pipes the caller follows itself. With
 * stdin, stdout and stderr all piped, the child's three streams are typed as present.
 */
export function spawnHost(
  file: string,
  args: readonly string[],
  options: HostSpawnOptions & { stdio: readonly ['pipe', 'pipe', 'pipe'] },
): ChildProcessWithoutNullStreams;
export function spawnHost(
  file: string,
  args: readonly string[],
  options: HostSpawnOptions,
): ChildProcess;
export function spawnHost(
  file: string,
  args: readonly string[],
  options: HostSpawnOptions,
): ChildProcess {
  const { env, cwd, detached, signal } = options;
  const stdio = options.stdio === 'ignore' ? 'ignore' : [...options.stdio];
  return spawn(file, args, { env, cwd, detached, signal, stdio });
}

/** How a run-to-completion tool starts and what counts as success. */
export interface HostRunOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** `'pipe'`: stdout joins stderr in the captured output; `'ignore'`: only stderr is kept. */
  stdout: 'ignore' | 'pipe';
  /** Exit codes that mean success; `[0]` when left out. */
  okCodes?: readonly number[];
  signal?: AbortSignal;
}

/** A tool ended with an exit code (or signal) not in its `okCodes`. */
export class HostToolError extends Error {
  constructor(
    readonly file: string,
    readonly code: number | null,
    /** What the tool wrote (see `HostRunOptions.stdout`), first 4 KiB. */
    readonly output: string,
  ) {
    const last = output.trim().split('\n').at(-1) ?? '';
    super(`${file} ended with exit code ${code}${last === '' ? '' : `: ${last}`}`);
  }
}

// Enough for the lines an error names; a chatty tool cannot grow the server's memory.
const OUTPUT_MAX = 4096;

/**
 * Runs `file` with `args` to its end, stdin empty; resolves with its captured output. Rejects
 * with a `HostToolError` naming the tool, its exit code and its last line of output, with the
 * spawn error when it cannot start, or with an AbortError once `signal` aborts (the tool is
 * killed then).
 */
export function runHost(
  file: string,
  args: readonly string[],
  options: HostRunOptions,
): Promise<string> {
  const { env, cwd, signal, okCodes = [0] } = options;
  return new Promise((resolve, reject) => {
    const child = spawnHost(file, args, {
      env,
      cwd,
      signal,
      stdio: ['ignore', options.stdout, 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      if (output.length < OUTPUT_MAX) output += chunk.toString('utf8');
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.once('error', reject);
    child.once('close', (code) =>
      okCodes.includes(code ?? -1)
        ? resolve(output)
        : reject(new HostToolError(file, code, output)),
    );
  });
}
