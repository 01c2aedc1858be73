import type { ServiceConfig } from './config.js';
import type { Store, VmLimitsRecord, VmRecord } from './store/index.js';
import type { VmPortTarget, VmState } from './vm/types.js';

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
interface VmShellOptions {
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
interface VmShellSession {
  /** The client's window changed size. */
  resize(cols: number, rows: number): void;
  /** Its exit status; `aborted` when `signal` hung it up. Rejects when it could not start. */
  exited: Promise<{ exitCode: number; aborted: boolean }>;
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
   * `creating`), whichever is first.
   */
  createInBackground(vm: VmRecord, signal: AbortSignal, waitUntil: number): Promise<VmRecord>;
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
  /** Its machine's state, limits and live usage. */
  stat(vm: VmRecord): Promise<VmState>;
  /** Applies and stores new limits (422 when the host cannot, or the disk would shrink below use). */
  resize(vm: VmRecord, limits: VmLimitsRecord): Promise<void>;
  /** Freezes (true) or thaws (false) the VM's processes and stores its status. */
  pause(vm: VmRecord, frozen: boolean): Promise<void>;
  /** How the VM proxy reaches `port` inside the VM (its own network), booting it if needed. */
  portTarget(vm: VmRecord, port: number): Promise<VmPortTarget>;
}

/** Where the service's listeners actually are (ports are known only once they listen). */
export interface ServiceEndpoints {
  /** Base URL of the HTTP listener, e.g. `http://127.0.0.1:7070`. */
  http: string;
  /** The SSH listener, or null when `--ssh-listen off`. */
  ssh: { host: string; port: number } | null;
  /** Base URL of the reflection listener, e.g. `http://127.0.0.1:7071`. */
  reflection: string;
}

/** The collaborators every command receives as `ctx.deps`, wired by `createService`. */
export interface ServiceDeps {
  store: Store;
  machines: VmMachines;
  config: ServiceConfig;
  endpoints: ServiceEndpoints;
  /** Milliseconds since the epoch; injected so tests can move time. */
  now(): number;
}

/**
 * The loopback ports the service itself listens on. VMs share the host's network, so a VM's
 * address must never forward to one of them: that would hand the reflection listener (and its
 * secrets) to anyone, or loop the proxy into itself.
 */
export function servicePorts(endpoints: ServiceEndpoints): Set<number> {
  const ports = new Set<number>();
  for (const url of [endpoints.http, endpoints.reflection]) {
    if (url !== '') ports.add(Number(new URL(url).port || (url.startsWith('https:') ? 443 : 80)));
  }
  if (endpoints.ssh !== null) ports.add(endpoints.ssh.port);
  return ports;
}
