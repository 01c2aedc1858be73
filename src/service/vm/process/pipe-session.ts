// Runs the process of an SSH session without a terminal for either runtime (SPEC §6a): stdin,
// stdout and stderr are three pipes, as sshd gives a command when no pty was asked for.
import { constants } from 'node:os';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { SESSION_STDERR_FD } from './in-vm-command.js';
import { spawnLaunch, type CommandLaunch } from './run-command.js';
import type { ExecResult, SessionOptions, ShellSession } from '../runtime.js';

/** What a runtime prepares before the session's process can start. */
export interface PipeLaunch {
  launch: CommandLaunch;
  /**
   * Where the command's stderr arrives: fd 2, or {@link SESSION_STDERR_FD} when fd 2 is the
   * launcher's own (nsenter, joining a sandbox), which says why a VM could not be entered.
   */
  stderrFd: 2 | typeof SESSION_STDERR_FD;
  /** Told once the process started: `pid` leads its session (the process runtime tracks it). */
  onStart?(pid: number): void;
  /** The error for text the launcher wrote when the session failed: it could not enter the VM. */
  launchFailed(errors: string): Error;
}

const LAUNCHER_ERRORS_MAX = 4096;

/**
 * Starts the session's process once `prepare` resolves and returns at once; input waits in
 * `options.input` meanwhile. It ends, like sshd's, when the command exited and every holder of
 * its stdout and stderr closed them (a background job that keeps them open keeps the session);
 * aborting `options.signal` hangs it up and ends it at once: SIGHUP to its process group, pipes
 * let go, `exited` resolves (aborted, SIGHUP) without waiting for the processes.
 */
export function startPipeSession(
  prepare: () => Promise<PipeLaunch>,
  options: SessionOptions,
): ShellSession {
  const exited = (async () => {
    options.signal?.throwIfAborted();
    const prepared = await prepare();
    options.signal?.throwIfAborted();
    return runPipes(prepared, options);
  })();
  exited.catch(() => {});
  // No terminal: nothing to resize.
  return { resize: () => {}, exited };
}

function runPipes(prepared: PipeLaunch, options: SessionOptions): Promise<ExecResult> {
  const child = spawnLaunch(prepared.launch, 'pipe');
  const input = options.input as Readable;
  const stdin = child.stdin!;
  const stdout = child.stdout!;
  const launcherApart = prepared.stderrFd === SESSION_STDERR_FD;
  const stderr = (launcherApart ? child.stdio[SESSION_STDERR_FD] : child.stderr) as Readable;
  if (child.pid !== undefined) prepared.onStart?.(child.pid);

  return new Promise<ExecResult>((resolve, reject) => {
    let aborted = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let launcherErrors = '';
    let settled = false;

    // Writes after the command stopped reading fail with EPIPE: its input is just not wanted.
    stdin.on('error', () => {});
    input.pipe(stdin);
    stdout.pipe(options.output as Writable, { end: false });
    stderr.pipe(options.errors as Writable, { end: false });
    if (launcherApart) {
      child.stderr!.on('data', (chunk: Buffer) => {
        if (launcherErrors.length < LAUNCHER_ERRORS_MAX) launcherErrors += chunk.toString('utf8');
      });
    }
    // Output nobody will read any more is drained into nothing, so that no writer inside the
    // VM blocks on a full pipe for a session that is gone.
    const letGo = (): void => {
      input.unpipe(stdin);
      stdin.destroy();
      for (const stream of [stdout, stderr]) {
        stream.unpipe();
        stream.removeAllListeners('data');
        stream.resume();
        // A background process may hold it for good: not a reason to keep the server alive.
        (stream as Partial<Socket>).unref?.();
      }
    };
    const settle = (): void => {
      if (settled || exit === undefined) return;
      settled = true;
      options.signal?.removeEventListener('abort', onAbort);
      letGo();
      child.unref();
      const failed = exit.code !== 0 && launcherErrors.trim() !== '' && !aborted;
      if (failed) return reject(prepared.launchFailed(launcherErrors.trim()));
      resolve(exitResult(exit.code, exit.signal, aborted));
    };
    // Hung up: it ends now, whatever its processes do (one that ignores SIGHUP, `nohup`, runs
    // on as a background process of the VM would), so nothing waits on them.
    const onAbort = (): void => {
      if (exit !== undefined || child.pid === undefined) return;
      aborted = true;
      try {
        process.kill(-child.pid, 'SIGHUP');
      } catch {
        // Gone between its exit and this.
      }
      exit = { code: null, signal: 'SIGHUP' };
      settle();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.once('error', (err) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', onAbort);
      letGo();
      reject(err);
    });
    child.once('exit', (code, signal) => {
      if (!aborted) exit = { code, signal };
    });
    child.once('close', settle);
  });
}

function exitResult(
  code: number | null,
  signal: NodeJS.Signals | null,
  aborted: boolean,
): ExecResult {
  if (signal !== null) {
    return { exitCode: 128 + (constants.signals[signal] ?? 0), signal, aborted };
  }
  return { exitCode: code ?? 0, aborted };
}
