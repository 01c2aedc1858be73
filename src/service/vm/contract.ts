// The VM contract (SPEC §4): what the rest of the service may ask of vm/, the one room that
// spawns processes, and the one Limits type with its defaults. It imports nothing of vm/: the store,
// the commands and the front ends build on it, and vm/'s own rooms implement it.
// The record type from its own module: store/index.ts brings better-sqlite3's types into the
// package's .d.ts, which a library user's TypeScript cannot resolve.
import type { Socket } from 'node:net';
import type { VmRecord } from '../store/vm-records.js';

/** A VM's limits, as asked for (`resize`, `--seed`) and stored. */
export interface VmLimits {
  /** CPUs, fractions allowed (`1.5`). */
  cpus: number;
  memoryBytes: number;
  /** Processes (and threads) at once. */
  pids: number;
  diskBytes: number;
}

/** SPEC §4's defaults: 2 CPUs, 2 GiB, 4096 processes, 10 GiB of disk. */
export const DEFAULT_VM_LIMITS: Readonly<VmLimits> = {
  cpus: 2,
  memoryBytes: 2 * 1024 ** 3,
  pids: 4096,
  diskBytes: 10 * 1024 ** 3,
};

/** The limits in force on a VM: a limit this host cannot enforce is null. */
export type EnforcedLimits = { [K in keyof VmLimits]: VmLimits[K] | null };

/** What a VM uses now; null where the host cannot tell. */
export interface VmUsage {
  memoryBytes: number | null;
  pids: number | null;
  diskBytes: number | null;
  cpuSeconds: number | null;
}

/**
 * A memory limit below what the VM holds that the kernel could not reclaim down to: the limit
 * was left as it was. `usedBytes` is what the VM used when the kernel gave up.
 */
export class MemoryInUse extends Error {
  constructor(readonly usedBytes: number) {
    super(`the VM uses ${usedBytes} bytes of memory, above the limit asked for`);
    this.name = 'MemoryInUse';
  }
}

/** What `stat` reports of a VM's machine. */
export interface VmState {
  /** True while the VM's init runs. */
  running: boolean;
  paused: boolean;
  /** When its init started (ms since the epoch), or null when it is not running. */
  bootedAt: number | null;
  limits: EnforcedLimits;
  usage: VmUsage;
  /** Why the VM's disk writes are held back (the server's disk is short of space), if they are. */
  diskNote?: string;
}

/** Output and outcome of one command run inside a VM. */
export interface VmExecOptions {
  /** Aborted at the command deadline: the whole process tree of the command is killed. */
  signal: AbortSignal;
  /**
   * stdout and stderr interleaved as produced. A promise returned asks for a pause: no more
   * output until it settles (backpressure from a slow client); any other value is ignored.
   */
  onOutput(chunk: Buffer): unknown;
}

/** An interactive shell's terminal: the client's pty, and the bytes to and from it. */
export interface VmShellOptions {
  /** Size in characters and TERM, as the client asked (SSH `pty-req`). */
  pty: { cols: number; rows: number; term: string };
  /** Hangs the terminal up (client gone, server stopping); there is no deadline. */
  signal: AbortSignal;
  /** The keyboard, piped in with backpressure until the shell ends (then unpiped, paused). */
  input: NodeJS.ReadableStream;
  /** The screen: raw terminal output, piped with backpressure, never ended. */
  output: NodeJS.WritableStream;
}

/** A running interactive shell in a VM. */
export interface VmShellSession {
  /** The client's window changed size. */
  resize(cols: number, rows: number): void;
  /** Its exit status; `aborted` when `signal` hung it up. Rejects when it could not start. */
  exited: Promise<{ exitCode: number; aborted: boolean }>;
}

/**
 * What an SSH session runs (SPEC §6a): `exec` its command with `/bin/sh -c`; `shell` a login
 * shell (bash when installed, else `/bin/sh`); `sftp` the OpenSSH sftp-server found in the VM.
 */
export type VmSessionProgram =
  | { readonly kind: 'exec'; readonly command: string }
  | { readonly kind: 'shell' }
  | { readonly kind: 'sftp' };

/** An SSH session into a VM: its program, terminal and streams. */
export interface VmSessionOptions {
  program: VmSessionProgram;
  /** A terminal of its own, as the client asked (`pty-req`); absent: stdout and stderr apart. */
  pty?: { cols: number; rows: number; term: string };
  /** `LANG`, `LC_*` and `TERM` the client sent (SSH `env`), already filtered. */
  env?: Readonly<Record<string, string>>;
  /** Hangs it up (client gone, server stopping); `rm` and `restart` hang it up too. */
  signal: AbortSignal;
  /** Its stdin, piped with backpressure; its end is the end of the command's input. */
  input: NodeJS.ReadableStream;
  /** Its stdout (the terminal's output with a pty), piped with backpressure, never ended. */
  output: NodeJS.WritableStream;
  /** Its stderr; unused with a pty. */
  errors: NodeJS.WritableStream;
}

/** A running SSH session in a VM. */
export interface VmSession {
  /** The client's window changed size (a session with a pty). */
  resize(cols: number, rows: number): void;
  /**
   * How it ended: the exit status, or the signal that ended it (`TERM`, no `SIG`); `aborted`
   * when it was hung up. Rejects when it could not start (paused VM: ExectlError 422).
   */
  exited: Promise<{ exitCode: number; signal?: string; aborted: boolean }>;
}

/**
 * What the commands need from the VM runtime, in terms of stored VM records. The
 * implementation (service/vm/) owns the sandboxes, their processes and their disks; the store
 * owns the records. Commands call the store first for checks and this for the machine.
 */
export interface VmMachines {
  /**
   * Creates the VM's disk and sandbox and runs its setup script once; all or nothing (422 if
   * the script fails, and nothing is left). `--seed` makes its VMs this way.
   */
  create(vm: VmRecord, signal: AbortSignal): Promise<void>;
  /**
   * `new` (SPEC §4): creates the VM's disk (under `signal`; rejects, leaving the disk to
   * `remove`, when that fails), then runs its setup script in the background for at most 15
   * minutes. Resolves with the record once the script ended (`running`, or `failed` with the
   * last line of its output in `setup`) or at `waitUntil` (ms since the epoch; still
   * `creating`), whichever is first. A VM with an image (SPEC §4a) has it pulled first, under
   * the same `waitUntil` (`credentials`: `--registry-auth`, never stored); a pull that fails
   * in time rejects with a 422, one that fails later leaves the VM `failed`.
   */
  createInBackground(
    vm: VmRecord,
    signal: AbortSignal,
    waitUntil: number,
    credentials?: { user: string; password: string } | null,
  ): Promise<VmRecord>;
  /** Makes `to`'s disk (a new record) a copy of `from`'s and starts its boot (`cp`); `from` goes on running. */
  copy(from: VmRecord, to: VmRecord): Promise<void>;
  /** Kills every process of the VM; the disk stays. */
  restart(vm: VmRecord): Promise<void>;
  /** Kills every process of the VM (its setup script too) and deletes its disk. */
  remove(vm: VmRecord): Promise<void>;
  /** Runs `/bin/sh -c command` inside the VM (SPEC §4) and resolves with its exit code. */
  exec(vm: VmRecord, command: string, options: VmExecOptions): Promise<{ exitCode: number }>;
  /** Runs an interactive shell inside the VM on a terminal of its own (`ssh <vm>`). */
  shell(vm: VmRecord, options: VmShellOptions): VmShellSession;
  /**
   * An SSH session in the VM (SPEC §6a), as root, with stdin; no deadline. A paused VM refuses
   * it (`exited` rejects with 422 `vm "x" is paused`); `rm` and `restart` of the VM end it.
   */
  session(vm: VmRecord, options: VmSessionOptions): VmSession;
  /** Its machine's state, limits and live usage. */
  stat(vm: VmRecord): Promise<VmState>;
  /** Applies and stores new limits (422 when the host cannot, or the disk would shrink below use). */
  resize(vm: VmRecord, limits: VmLimits): Promise<void>;
  /** Freezes (true) or thaws (false) the VM's processes and stores its status. */
  pause(vm: VmRecord, frozen: boolean): Promise<void>;
  /**
   * The one way into a VM's network (SPEC §4, §6): a TCP connection to `port` inside the VM's
   * own network, never a port of the host, booting the VM if needed. Resolves once connected;
   * rejects with the connection's error (`ECONNREFUSED` when nothing listens there).
   */
  connect(vm: VmRecord, port: number): Promise<Socket>;
  /**
   * Delivers one mail message (its `Delivered-To` line first) into the VM's `~/Maildir/new/`
   * (SPEC §4b) by a process inside the VM, as its root, never by a host process writing the
   * VM's files. Resolves with how many files wait in `new/` then; rejects when the VM cannot
   * take it now (paused, no shell in its image, a full disk, 30 s passed).
   */
  deliverMail(vm: VmRecord, message: Buffer): Promise<number>;
}

/**
 * What vm/ is told of the service's listeners, read at each use: their addresses are known
 * only once they listen. `''` while one does not listen (yet).
 */
export interface VmListeners {
  /** Base URL of the HTTP listener. */
  readonly http: string;
  /** Base URL of the reflection listener. */
  readonly reflection: string;
}

/** Which VM opened a connection to a listener inside its own network, and whose VM it is. */
export interface VmOrigin {
  vmId: number;
  accountId: number;
}

/**
 * A listener of the server as machine VMs see it: it is handed each connection a VM opens to
 * it inside the VM's own network, with that VM's origin (its limits count under it:
 * rules/client-address.ts), and serves it like any other.
 */
export interface VmsListener {
  accept(socket: Socket, origin: VmOrigin): void;
}
