// Runs the process of an interactive shell for either runtime: they differ only in how the
// shell is launched (joining a sandbox, or not) and how its terminal is resized.
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { killSession } from './kill-tree.js';
import { spawnLaunch, type CommandLaunch } from './run-command.js';
import {
  parseShellReport,
  ptySize,
  REPORT_FD,
  type PtySize,
  type ShellReport,
} from './shell-command.js';
import type { ExecResult, ShellOptions, ShellSession } from '../runtime.js';

/** What a runtime prepares before the shell can start (its sandbox running, say). */
interface ShellLaunch {
  /** Runs `shellCommand(...)` the way the runtime runs its commands. */
  launch: CommandLaunch;
  /** Sets the size of the shell's terminal, `tty` as the shell reported it. */
  resizeTty(tty: string, size: PtySize): Promise<void>;
  /** Told once the shell reported itself; `launcherPid` is the session we started. */
  onReport?(report: ShellReport, launcherPid: number): void;
  /** The error for text the launcher wrote on its own stderr: it could not enter the VM. */
  launchFailed(errors: string): Error;
}

const REPORT_MAX = 256;
const LAUNCHER_ERRORS_MAX = 4096;

/**
 * Starts a shell once `prepare` resolves and returns at once: keystrokes wait in
 * `options.input` (its pipe is attached only when the process exists), sizes asked for
 * meanwhile are applied as soon as the terminal is known. Aborting `options.signal` kills
 * the launcher's session (nsenter, `script`): the pty's master closes, which hangs up the
 * terminal as a closed terminal window does.
 */
export function startShellSession(
  prepare: () => Promise<ShellLaunch>,
  options: ShellOptions,
): ShellSession {
  const resizer = new Resizer(ptySize(options.pty.cols, options.pty.rows));
  const exited = (async () => {
    options.signal?.throwIfAborted();
    const prepared = await prepare();
    options.signal?.throwIfAborted();
    return runShell(prepared, options, resizer);
  })();
  // Whoever holds the session observes `exited`; an early failure must not also be unhandled.
  exited.catch(() => {});
  return { resize: (cols, rows) => resizer.want(cols, rows), exited };
}

function runShell(
  prepared: ShellLaunch,
  options: ShellOptions,
  resizer: Resizer,
): Promise<ExecResult> {
  const child = spawnLaunch(prepared.launch, 'pipe');
  const input = options.input as Readable;
  const output = options.output as Writable;
  const stdin = child.stdin!;
  const stdout = child.stdout!;
  const report = child.stdio[REPORT_FD] as Readable;

  return new Promise<ExecResult>((resolve, reject) => {
    let aborted = false;
    let killed: Promise<void> = Promise.resolve();
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let launcherErrors = '';
    let reported = '';
    let reportSeen = false;

    // Writes after the shell ended fail with EPIPE; the pipe is undone on close anyway.
    stdin.on('error', () => {});
    input.pipe(stdin, { end: false });
    stdout.pipe(output, { end: false });
    // A screen that went away (client gone) must not leave the shell blocked on a full pipe.
    const dropOutput = (): void => {
      stdout.unpipe(output);
      stdout.resume();
    };
    output.once('close', dropOutput);
    child.stderr!.on('data', (chunk: Buffer) => {
      if (launcherErrors.length < LAUNCHER_ERRORS_MAX) launcherErrors += chunk.toString('utf8');
    });
    // Only the first line counts, and only while it is short: it is written before the
    // shell starts, and nothing is read from this fd after it.
    report.on('data', (chunk: Buffer) => {
      if (reportSeen || reported.length >= REPORT_MAX) return;
      reported += chunk.toString('utf8');
      const parsed = parseShellReport(reported);
      if (parsed === undefined) return;
      reportSeen = true;
      prepared.onReport?.(parsed, child.pid ?? 0);
      resizer.start(parsed.tty, prepared.resizeTty);
    });

    const onAbort = (): void => {
      if (exit !== undefined || child.pid === undefined) return;
      aborted = true;
      killed = killSession(child.pid);
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.once('exit', (code, signal) => (exit = { code, signal }));
    child.once('error', (err) => {
      options.signal?.removeEventListener('abort', onAbort);
      input.unpipe(stdin);
      reject(err);
    });
    child.once('close', () => {
      options.signal?.removeEventListener('abort', onAbort);
      output.removeListener('close', dropOutput);
      input.unpipe(stdin);
      stdout.unpipe(output);
      resizer.stop();
      if (launcherErrors !== '' && !aborted) {
        reject(prepared.launchFailed(launcherErrors.trim()));
        return;
      }
      const result = exitResult(exit?.code ?? null, exit?.signal ?? null, aborted);
      killed.then(() => resolve(result), reject);
    });
  });
}

function exitResult(code: number | null, signal: NodeJS.Signals | null, aborted: boolean) {
  if (signal !== null) {
    return { exitCode: 128 + (constants.signals[signal] ?? 0), signal, aborted };
  }
  return { exitCode: code ?? 0, aborted };
}

/**
 * Applies terminal sizes one at a time, newest last: a window dragged across the screen sends
 * a burst of sizes, and only the last one matters. Nothing runs before the terminal is known
 * or after the shell ended. A failed resize is dropped: the shell goes on at its old size.
 */
class Resizer {
  #tty: string | undefined;
  #apply: ((tty: string, size: PtySize) => Promise<void>) | undefined;
  #applied: PtySize | undefined;
  #wanted: PtySize | undefined;
  #busy = false;
  #stopped = false;

  /** `initial`: the size the shell starts with. */
  constructor(initial: PtySize | undefined) {
    this.#applied = initial;
  }

  want(cols: number, rows: number): void {
    const size = ptySize(cols, rows);
    if (size === undefined || this.#stopped) return;
    this.#wanted = size;
    this.#pump();
  }

  start(tty: string, apply: (tty: string, size: PtySize) => Promise<void>): void {
    this.#tty = tty;
    this.#apply = apply;
    this.#pump();
  }

  stop(): void {
    this.#stopped = true;
  }

  #pump(): void {
    const tty = this.#tty;
    const apply = this.#apply;
    const size = this.#wanted;
    if (this.#busy || this.#stopped || tty === undefined || apply === undefined) return;
    if (size === undefined) return;
    this.#wanted = undefined;
    if (sameSize(size, this.#applied)) return;
    this.#busy = true;
    apply(tty, size)
      .then(
        () => (this.#applied = size),
        () => {},
      )
      .finally(() => {
        this.#busy = false;
        this.#pump();
      });
  }
}

function sameSize(a: PtySize, b: PtySize | undefined): boolean {
  return b !== undefined && a.cols === b.cols && a.rows === b.rows;
}
