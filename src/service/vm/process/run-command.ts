// Runs one command process for a VM and reports how it ended. Shared by both runtimes: they
// differ only in the argv (joining a sandbox, or not), the env and the folder.
import { constants } from 'node:os';
import type { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { PAYLOAD_FD } from './in-vm-command.js';
import { killSession } from './kill-tree.js';
import { spawnHost, type ChildProcess } from './spawn-host.js';
import type { ExecOptions, ExecResult } from '../runtime.js';

/** The process to start. */
export interface CommandLaunch {
  argv: readonly [string, ...string[]];
  env: Record<string, string>;
  cwd: string;
  /** Data for the process on fd {@link PAYLOAD_FD} (see process/in-vm-command.ts); none: no such fd. */
  payload?: Buffer;
}

/** How the command ended, plus what the launcher itself wrote on its own stderr. */
export interface CommandOutcome extends ExecResult {
  /**
   * Anything written to the process's original stderr. The command's own stderr is merged
   * into stdout before it starts, so text here comes from the launcher (nsenter, setpriv)
   * and means the command never ran.
   */
  launcherErrors: string;
  /** The session id of the command (its pid): what the process runtime tracks. */
  sessionId: number;
}

// After the shell exits, its output may still sit in the pipe; but a background process may
// hold the pipe open for good. Output is collected until the pipe closes, or until it has been
// quiet this long after the exit (then the rest is read and dropped, so a background process
// that prints never dies of SIGPIPE).
const QUIET_AFTER_EXIT_MS = 100;
const LAUNCHER_ERRORS_MAX = 4096;

/**
 * The argv that runs `command` like sshd does: `/bin/sh -c command`, with stderr joined to
 * stdout first so the two arrive interleaved in the order written.
 */
export function shellArgv(command: string): [string, ...string[]] {
  return ['/bin/sh', '-c', 'exec 2>&1; exec /bin/sh -c "$1"', 'sh', command];
}

/**
 * Starts `launch` as the leader of a new session with stdin on /dev/null, streams its output
 * to `options.onOutput`, and kills its session when `options.signal` aborts.
 */
export function runCommand(launch: CommandLaunch, options: ExecOptions): Promise<CommandOutcome> {
  const { signal, onOutput } = options;
  signal?.throwIfAborted();
  const child = spawnLaunch(launch, 'ignore');
  return new Promise((resolve, reject) => {
    let launcherErrors = '';
    let aborted = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    let activity = 0;
    let paused = false;
    let quietTimer: NodeJS.Timeout | undefined;
    // Settles once no process of the session is left, so a caller that sees `aborted` knows
    // the whole tree is gone.
    let killed: Promise<void> = Promise.resolve();

    const onAbort = (): void => {
      resume();
      if (exit !== undefined || child.pid === undefined) return finish();
      aborted = true;
      killed = killSession(child.pid);
    };
    const finish = (): void => {
      if (settled || exit === undefined) return;
      settled = true;
      clearTimeout(quietTimer);
      signal?.removeEventListener('abort', onAbort);
      releaseLeftovers(child);
      const outcome = {
        ...exitResult(exit.code, exit.signal),
        aborted,
        launcherErrors,
        sessionId: child.pid ?? 0,
      };
      killed.then(() => resolve(outcome), reject);
    };
    // Quiet is confirmed one event-loop turn after the timer: if the loop was busy, output
    // that was already in the pipe is read in that turn's poll phase before we decide.
    const waitForQuiet = (): void => {
      const seen = activity;
      quietTimer = setTimeout(
        () => setImmediate(() => (activity === seen && !paused ? finish() : waitForQuiet())),
        QUIET_AFTER_EXIT_MS,
      );
    };
    // The reader asked for a pause: output waits in the pipe (the command blocks once it is full).
    const resume = (): void => {
      if (!paused) return;
      paused = false;
      activity++;
      child.stdout?.resume();
    };

    child.stdout?.on('data', (chunk: Buffer) => {
      activity++;
      if (settled) return;
      const wait = onOutput?.(chunk);
      if (!(wait instanceof Promise) || signal?.aborted === true) return;
      paused = true;
      child.stdout?.pause();
      void wait.then(resume, resume);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      activity++;
      if (launcherErrors.length < LAUNCHER_ERRORS_MAX) launcherErrors += chunk.toString('utf8');
    });
    child.once('error', (err) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.once('exit', (code, sig) => {
      exit = { code, signal: sig };
      waitForQuiet();
    });
    child.once('close', finish);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function exitResult(code: number | null, signal: NodeJS.Signals | null): ExecResult {
  if (signal !== null) {
    return { exitCode: 128 + (constants.signals[signal] ?? 0), signal, aborted: false };
  }
  return { exitCode: code ?? 0, aborted: false };
}

// Background processes may still hold the pipes: keep draining them into nothing, without
// keeping the server's event loop alive for their sake.
function releaseLeftovers(child: ChildProcess): void {
  for (const stream of [child.stdout, child.stderr]) {
    if (stream === null || stream.readableEnded) continue;
    stream.removeAllListeners('data');
    stream.resume();
    (stream as Socket).unref();
  }
  child.unref();
}

/**
 * Starts `launch` as the leader of a new session (so that its whole tree can be killed), with
 * stdout and stderr piped, and hands it its payload. Stdin and fd 3 are `'pipe'` for an
 * interactive shell (keystrokes in, its report out) and `'ignore'` for a command.
 */
export function spawnLaunch(launch: CommandLaunch, stdinAndFd3: 'ignore' | 'pipe'): ChildProcess {
  const [file, ...args] = launch.argv;
  const payloadFd = launch.payload === undefined ? 'ignore' : 'pipe';
  const child = spawnHost(file, args, {
    cwd: launch.cwd,
    env: launch.env,
    detached: true,
    stdio: [stdinAndFd3, 'pipe', 'pipe', stdinAndFd3, payloadFd],
  });
  sendPayload(child, launch.payload);
  return child;
}

/** Writes the payload to its fd and closes it; a launcher that died early just loses it. */
function sendPayload(child: ChildProcess, payload: Buffer | undefined): void {
  const pipe = child.stdio[PAYLOAD_FD] as Writable | null | undefined;
  if (payload === undefined || pipe == null) return;
  pipe.on('error', () => {});
  pipe.end(payload);
}
