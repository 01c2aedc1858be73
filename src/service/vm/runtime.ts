import type { Socket } from 'node:net';
import type { VmLimits, VmSessionProgram, VmState } from './contract.js';
import type { MountedDisk } from './disk/index.js';
import type { SandboxMode } from './sandbox/index.js';
import type { VmImageSpec } from './image/index.js';

// The contract of a VM runtime (SPEC §4): what the rest of the service may ask of the one room
// that spawns processes. Three implementations: process/process-runtime.ts (plain processes),
// sandbox/sandbox-runtime.ts (bwrap as an ordinary user), machine/machine-runtime.ts (root).

/** Which runtime runs the VMs (`exectl serve --runtime`). */
export type RuntimeKind = 'bwrap' | 'process';

/** What `--runtime` accepts: a runtime, or `auto` (bwrap when it works, else process). */
export type RuntimeChoice = 'auto' | RuntimeKind;

/** The runtime chosen at start, and why when it is not isolated (the server prints it loudly). */
export interface DetectedRuntime {
  kind: RuntimeKind;
  reason?: string;
  /** How bwrap VMs run (machines as root). */
  mode: SandboxMode;
  /** Each guarantee of SPEC §4 this host cannot give, one sentence each (said once at start). */
  warnings: string[];
}

/** Names one VM for a runtime. */
export interface VmRef {
  /**
   * The VM's disk folder, `<data>/vms/<id>`: its identity inside a runtime. It never changes
   * with the VM's name, so renames cost nothing.
   */
  readonly diskDir: string;
  /** The VM's current name: its hostname in the bwrap runtime (a rename shows at the next command). */
  readonly name: string;
}

/** A VM as its commands see it. */
export interface VmSpec extends VmRef {
  /** The `--env` values of `new`. They may override HOME, USER and PATH. */
  readonly env: Readonly<Record<string, string>>;
  /** Its limits (SPEC §4); {@link DEFAULT_VM_LIMITS} when absent. */
  readonly limits?: VmLimits;
  /** The image it boots (SPEC §4a, machine VMs only); absent: the default base system. */
  readonly image?: VmImageSpec;
}

/** How to run one command. */
export interface ExecOptions {
  /** Set last, over the VM's env: per-call values such as `EXECTL_REFLECTION_URL`. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * The deadline. Aborting it kills the command's whole process tree (everything still in its
   * session, grandchildren included); processes that left with `setsid` live on.
   */
  readonly signal?: AbortSignal;
  /**
   * stdout and stderr interleaved in the order written (they are one pipe). Returning a promise
   * asks for a pause (backpressure): no more output is read until it settles, so a command
   * that writes faster than its reader blocks on the full pipe; any other value is ignored.
   * Once `signal` aborts, reading goes on regardless, so the command's end is never held up
   * by a reader that is gone.
   */
  readonly onOutput?: (chunk: Buffer) => unknown;
}

/** How one command ended. */
export interface ExecResult {
  /** The exit status; `128 + n` when signal n ended it, as a shell reports it. */
  exitCode: number;
  /** The signal that ended the command, if one did (`SIGKILL` after an abort). */
  signal?: NodeJS.Signals;
  /** True when the abort signal fired before the command ended and its tree was killed. */
  aborted: boolean;
}

/** The terminal of an interactive shell, as the client asked for it (SSH `pty-req`). */
export interface PtySpec {
  /** Size in characters; 0 (or anything that is not a sane size) leaves the size unset. */
  readonly cols: number;
  readonly rows: number;
  /** The shell's TERM, e.g. `xterm-256color`; `dumb` stands in for a missing or odd one. */
  readonly term: string;
}

/** How to run an interactive shell. */
export interface ShellOptions {
  /** Set last, over the VM's env, like {@link ExecOptions.env}. */
  readonly env?: Readonly<Record<string, string>>;
  readonly pty: PtySpec;
  /**
   * Hangs the terminal up, as closing a terminal window does (client gone, server stopping):
   * the shell and its foreground job get SIGHUP and end; what ignores it (`nohup`) lives on.
   * There is no deadline: a shell lasts as long as its user keeps it.
   */
  readonly signal?: AbortSignal;
  /**
   * The keyboard: piped into the terminal, with backpressure, until the shell ends; then
   * unpiped (which pauses it) and never ended. Ctrl-C and Ctrl-D are bytes for the terminal.
   */
  readonly input: NodeJS.ReadableStream;
  /**
   * The screen: the terminal's output, raw (its line discipline already made `\r\n`), piped
   * with backpressure, never ended.
   */
  readonly output: NodeJS.WritableStream;
}

/** A running interactive shell. */
export interface ShellSession {
  /** Changes the terminal's size; the shell's foreground job gets SIGWINCH. Best effort. */
  resize(cols: number, rows: number): void;
  /**
   * The shell's exit status once the terminal is gone and its output delivered; `aborted`
   * when `signal` hung it up. Rejects when the shell could not start (the runtime is shut
   * down, the VM cannot be entered) or `signal` was already aborted.
   */
  readonly exited: Promise<ExecResult>;
}

/** What an SSH session runs (contract.ts). */
export type SessionProgram = VmSessionProgram;

/**
 * How to run an SSH session (SPEC §6a): a command, or a login shell, with its stdin forwarded
 * and, without a terminal, its stdout and stderr apart.
 */
export interface SessionOptions {
  /** Set last, over the VM's env, like {@link ExecOptions.env}. */
  readonly env?: Readonly<Record<string, string>>;
  /** What runs: see {@link SessionProgram}. */
  readonly program: SessionProgram;
  /** A terminal of its own, as the client asked (`pty-req`); absent: plain pipes. */
  readonly pty?: PtySpec;
  /**
   * Hangs the session up (client gone, `rm`, `restart`, server stopping): with a terminal as
   * {@link ShellOptions.signal}; without, its process group gets SIGHUP (what ignores it,
   * `nohup`, or left with `setsid` lives on) and its pipes are let go. No deadline.
   */
  readonly signal?: AbortSignal;
  /** The command's stdin, piped with backpressure; its end is the command's end of input. */
  readonly input: NodeJS.ReadableStream;
  /** Its stdout (with a terminal: the terminal's output), piped with backpressure, never ended. */
  readonly output: NodeJS.WritableStream;
  /** Its stderr, apart from stdout; unused with a terminal, which merges them as a pty does. */
  readonly errors: NodeJS.WritableStream;
}

/** What a runtime may be unable to do on a host: apply limits, freeze a VM. */
export type RuntimeCapability = 'resize' | 'pause';

/** What {@link VmRuntime.onStateChange} reports of one VM (by its disk folder, resolved). */
export type VmStateListener = (
  diskDir: string,
  state: 'running' | 'stopped',
  reason?: string,
) => void;

/** How to create a VM. */
export interface CreateOptions extends ExecOptions {
  /** Run once inside the new VM with `/bin/sh -c`, like a command; `null`/absent: none. */
  readonly setupScript?: string | null;
}

/**
 * Runs VMs: persistent disks, isolated sandboxes (bwrap) or plain processes (process), and the
 * commands inside them. Every method is safe to call concurrently for different VMs.
 */
export interface VmRuntime {
  readonly kind: RuntimeKind;
  /**
   * Where a setup script's output is kept inside this runtime's VMs (setup-script.ts): `''`
   * for `$HOME/exectl-setup.log` where a VM has no root file system of its own.
   */
  readonly setupLog: string;
  /**
   * Null when this runtime can do `what` on this host (`resize`: limits; `pause`: the freezer,
   * for pause and resume), else why not: one line for the user. Asked before the call.
   */
  cannot(what: RuntimeCapability): string | null;
  /**
   * Calls `listener` when a VM's processes come or go by themselves: `running` once a boot
   * succeeded, `stopped` when a boot failed (`reason`: why) or its init ended unasked. Not
   * called for `restart`, `remove` or `shutdown`, which stop VMs on purpose.
   */
  onStateChange(listener: VmStateListener): void;
  /** Boots the VM when it is not running (its `/etc/rc.local` runs); rejects when it cannot. */
  boot(vm: VmSpec): Promise<void>;
  /**
   * Makes `to`'s disk (its folder must not exist) a copy of `from`'s, owned by `to`'s own ids;
   * a running `from` is held still for the copy (its disk frozen) and goes on afterwards.
   */
  copy(from: VmSpec, to: VmSpec): Promise<void>;
  /**
   * Makes the VM's disk (the folder must not exist; its parents are created) and runs the
   * setup script once. All or nothing: when the script fails (ExectlError `command_failed`,
   * with the tail of its output) or `signal` aborts (its reason is thrown), the VM's processes
   * and disk are gone again.
   */
  create(vm: VmSpec, options?: CreateOptions): Promise<void>;
  /**
   * Runs `/bin/sh -c command` in the VM with no stdin and the env HOME, USER, PATH, then the
   * VM's env, then `options.env`. Starts the VM's sandbox first when it is not running
   * (first use, after a server restart). Resolves when the shell exits; background processes
   * it started keep running. Throws when `signal` is already aborted.
   */
  exec(vm: VmSpec, command: string, options?: ExecOptions): Promise<ExecResult>;
  /**
   * Runs an interactive shell in the VM on a terminal of its own (util-linux `script` makes a
   * pty inside the VM): bash when the system has it, else `/bin/sh`, with the env of `exec`
   * plus TERM and SHELL. Starts the sandbox like `exec`. Background jobs the shell started
   * keep running after it exits, like any VM process.
   */
  shell(vm: VmSpec, options: ShellOptions): ShellSession;
  /**
   * Runs an SSH session in the VM (SPEC §6a), as root with the env of `exec`. Its `exited`
   * resolves once the command ended and its output was delivered (without a terminal: once
   * every holder of its stdout and stderr let go, as with sshd), with the signal that ended it
   * if one did; it rejects when the VM cannot be entered.
   */
  session(vm: VmSpec, options: SessionOptions): ShellSession;
  /** Kills every process of the VM and starts it afresh; the disk stays. */
  restart(vm: VmSpec): Promise<void>;
  /** Kills every process of the VM and deletes its disk. */
  remove(vm: VmSpec): Promise<void>;
  /** Kills the processes of every VM (server exit). Later calls to `exec` reject. */
  shutdown(): Promise<void>;
  /** Its state, limits and live usage (booting it is not needed: a stopped VM says so). */
  stat(vm: VmSpec): Promise<VmState>;
  /**
   * Applies `vm.limits` (already checked): CPU, memory and processes at once; a disk that grows
   * grows in place, a disk that shrinks is resized while the VM is stopped (it boots again).
   */
  resize(vm: VmSpec): Promise<void>;
  /** Freezes (true) or thaws (false) every process of the running VM. */
  pause(vm: VmSpec, frozen: boolean): Promise<void>;
  /** A connection to `port` inside the VM's network, booting it when needed (contract.ts `connect`). */
  connect(vm: VmSpec, port: number): Promise<Socket>;
  /** The disk images mounted now (machine VMs that run), for the disk watchdog; never waits. */
  mountedDisks(): Promise<MountedDisk[]>;
}
