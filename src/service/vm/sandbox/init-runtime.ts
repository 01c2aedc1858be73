// What the two bwrap runtimes share: each VM is a bubblewrap sandbox whose pid 1 lives as long
// as the VM, and every command joins that sandbox's namespaces with nsenter. The sandbox of an
// ordinary user (sandbox-runtime.ts) and the machine of a root server (machine/) differ only in
// the hooks below: how a disk is made, copied and deleted, how an init starts, what a command
// joins, and what the machine adds (limits, freezer, network).
//
// Why join with nsenter instead of a new bwrap per command: a command's background processes
// must outlive it, share its /tmp and see the VM's other processes — one pid, mount and ipc
// namespace per VM, which only a long-lived process can own. Why not have pid 1 start commands
// on request: it would be a program of ours inside the VM (a control protocol, and a process
// the VM could disturb); nsenter (util-linux, beside bwrap on every distribution) enters the
// namespaces from outside with no cooperation, and the kernel's pid-namespace rules give
// restart/remove for free: killing pid 1 kills everything that joined.
import { resolve } from 'node:path';
import { commandFailed } from '../../../errors.js';
import type { Socket } from 'node:net';
import type { VmState } from '../contract.js';
import { createVm, SETUP_LOG } from '../setup/index.js';
import { CopiesUnderWay } from '../disk/index.js';
import { assertDiskExists } from '../disk/index.js';
import type { MountedDisk } from '../disk/index.js';
import { commandEnv } from '../process/index.js';
import { runCommand, type CommandLaunch } from '../process/index.js';
import { findShellTools, shellCommand, shellEnv, sttySizeCommand } from '../process/index.js';
import { startShellSession, startPipeSession, SESSION_STDERR_FD } from '../process/index.js';
import { pipeCommand, terminalProgram, type TerminalProgram } from '../process/index.js';
import type {
  CreateOptions,
  ExecOptions,
  ExecResult,
  RuntimeCapability,
  SessionOptions,
  ShellOptions,
  ShellSession,
  VmRef,
  VmRuntime,
  VmSpec,
  VmStateListener,
} from '../runtime.js';
import { VM_HOME } from './bwrap-args.js';
import { joinLaunch, type JoinTarget } from './join-command.js';
import type { VmInit } from './sandbox-init.js';
import type { BwrapTools } from './tools.js';

export abstract class InitRuntime<Init extends VmInit> implements VmRuntime {
  readonly kind = 'bwrap';
  readonly setupLog = SETUP_LOG;
  private readonly listeners: VmStateListener[] = [];
  // By resolved disk folder. A pending start is shared by every command that needs it.
  private readonly inits = new Map<string, Promise<Init>>();
  private readonly paused = new Set<string>();
  private readonly copies = new CopiesUnderWay();
  private closed = false;

  constructor(protected readonly tools: BwrapTools) {}

  /** Makes the VM's disk (its folder must not exist). */
  protected abstract makeDisk(vm: VmSpec): Promise<void>;
  /** Makes `toDir` a copy of `fromDir`'s disk; `running` is the source's init, if it runs. */
  protected abstract copyDisk(
    fromDir: string,
    toDir: string,
    running: Init | undefined,
    signal: AbortSignal,
  ): Promise<void>;
  /** Deletes the VM's disk (its processes are gone). */
  protected abstract deleteDisk(vm: VmSpec): Promise<void>;
  /** Starts the VM's init on its existing disk. */
  protected abstract startInit(vm: VmSpec, diskDir: string): Promise<Init>;
  /** What a command of the VM joins. */
  protected abstract joinTarget(init: Init): JoinTarget;
  abstract cannot(what: RuntimeCapability): string | null;
  abstract stat(vm: VmSpec): Promise<VmState>;
  abstract resize(vm: VmSpec): Promise<void>;
  abstract pause(vm: VmSpec, frozen: boolean): Promise<void>;
  abstract connect(vm: VmSpec, port: number): Promise<Socket>;
  abstract mountedDisks(): Promise<MountedDisk[]>;

  async create(vm: VmSpec, options: CreateOptions = {}): Promise<void> {
    await createVm(this, vm, options, this.setupLog, () => this.makeDisk(vm));
  }

  onStateChange(listener: VmStateListener): void {
    this.listeners.push(listener);
  }

  async boot(vm: VmSpec): Promise<void> {
    await this.running(vm);
  }

  async copy(from: VmSpec, to: VmSpec): Promise<void> {
    const [fromDir, toDir] = [resolve(from.diskDir), resolve(to.diskDir)];
    await this.copies.run(fromDir, toDir, async (signal) => {
      await assertDiskExists(fromDir);
      await this.copyDisk(fromDir, toDir, await this.current(from), signal);
    });
  }

  async exec(vm: VmSpec, command: string, options: ExecOptions = {}): Promise<ExecResult> {
    options.signal?.throwIfAborted();
    // The in-VM launcher already joined stderr to stdout: sh -c runs the command directly.
    const launch = await this.launch(vm, options.env ?? {}, ['/bin/sh', '-c', command]);
    const outcome = await runCommand(launch, options);
    if (outcome.launcherErrors !== '' && !outcome.aborted) {
      throw new Error(`could not enter vm "${vm.name}": ${outcome.launcherErrors.trim()}`);
    }
    const { exitCode, signal, aborted } = outcome;
    return signal === undefined ? { exitCode, aborted } : { exitCode, signal, aborted };
  }

  shell(vm: VmSpec, options: ShellOptions): ShellSession {
    return this.terminal(vm, options);
  }

  session(vm: VmSpec, options: SessionOptions): ShellSession {
    const { pty, program } = options;
    if (pty !== undefined) return this.terminal(vm, { ...options, pty }, terminalProgram(program));
    return startPipeSession(async () => {
      const argv = ['/bin/sh', '-c', pipeCommand(program)];
      return {
        launch: await this.launch(vm, options.env ?? {}, argv, true),
        stderrFd: SESSION_STDERR_FD,
        launchFailed: (errors) => new Error(`could not enter vm "${vm.name}": ${errors}`),
      };
    }, options);
  }

  // A shell, or an SSH session's program, on a terminal of its own inside the VM.
  private terminal(vm: VmSpec, options: ShellOptions, program?: TerminalProgram): ShellSession {
    return startShellSession(async () => {
      const tools = findShellTools();
      const callEnv = { ...shellEnv(options.pty), ...options.env };
      const inVm = (command: string, env: Readonly<Record<string, string>>) =>
        this.launch(vm, env, ['/bin/sh', '-c', command]);
      return {
        launch: await inVm(shellCommand(tools, options.pty, program), callEnv),
        // The resize runs inside the VM like any command: the terminal's name came from inside,
        // and no host process opens a VM's file.
        resizeTty: async (tty, size) => {
          const launch = await inVm(`exec ${sttySizeCommand(tools, tty, size)}`, {});
          const outcome = await runCommand(launch, {});
          if (outcome.exitCode !== 0) throw new Error(`stty ended with ${outcome.exitCode}`);
        },
        launchFailed: (errors) => new Error(`could not enter vm "${vm.name}": ${errors}`),
      };
    }, options);
  }

  async restart(vm: VmSpec): Promise<void> {
    await this.stop(vm);
    await this.running(vm);
  }

  async remove(vm: VmSpec): Promise<void> {
    const removed = commandFailed(`the copy was stopped: vm "${vm.name}" was removed`);
    await this.copies.abort(resolve(vm.diskDir), removed);
    await this.stop(vm);
    await this.deleteDisk(vm);
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    await this.copies.abort(undefined, new Error('the server stopped during the copy'));
    const pending = [...this.inits.values()];
    this.inits.clear();
    await Promise.all(
      pending.map((p) =>
        p.then(
          (init) => init.stop(),
          () => {},
        ),
      ),
    );
  }

  /** True while the VM is frozen by `pause`. */
  protected isPaused(vm: VmRef): boolean {
    return this.paused.has(resolve(vm.diskDir));
  }

  /** Records that the VM is frozen (true) or thawed (false). */
  protected setPaused(vm: VmRef, frozen: boolean): void {
    const key = resolve(vm.diskDir);
    if (frozen) this.paused.add(key);
    else this.paused.delete(key);
  }

  /** The inits that have booted, by resolved disk folder (boots under way are skipped). */
  protected async bootedInits(): Promise<[string, Init][]> {
    // Racing each pending init against one already settled takes only those already booted.
    const settled = Promise.resolve(undefined);
    const found = await Promise.all(
      [...this.inits].map(async ([key, init]) => {
        const booted = await Promise.race([init, settled]).catch(() => undefined);
        return booted?.alive() === true ? ([key, booted] as [string, Init]) : null;
      }),
    );
    return found.filter((entry) => entry !== null);
  }

  /**
   * How to run `argv` with the VM's env plus `callEnv` inside the VM, booting it first;
   * `stderrApart`: see {@link joinLaunch}.
   */
  private async launch(
    vm: VmSpec,
    callEnv: Readonly<Record<string, string>>,
    argv: readonly string[],
    stderrApart = false,
  ): Promise<CommandLaunch> {
    const init = await this.running(vm);
    if (this.isPaused(vm)) throw commandFailed(`vm "${vm.name}" is paused`);
    if (init.hostname !== vm.name) await this.rename(init, vm.name);
    const env = commandEnv(ROOT_HOME, vm.env, callEnv);
    return joinLaunch(this.tools, this.joinTarget(init), env, argv, stderrApart);
  }

  /** The VM's running init, if any, without starting it. */
  protected async current(vm: VmRef): Promise<Init | undefined> {
    const init = await this.inits.get(resolve(vm.diskDir))?.catch(() => undefined);
    return init?.alive() ? init : undefined;
  }

  /** The VM's sandbox, started when it is not running (first use, after a crash or restart). */
  protected async running(vm: VmSpec): Promise<Init> {
    const key = resolve(vm.diskDir);
    for (;;) {
      if (this.closed) throw new Error('the VM runtime is shut down');
      const current = this.inits.get(key);
      if (current === undefined) break;
      const init = await current.catch(() => undefined);
      if (init?.alive()) return init;
      // Dead or failed: forget it, unless another caller already replaced it meanwhile.
      if (this.inits.get(key) === current) this.inits.delete(key);
    }
    const starting = this.start(vm, key);
    this.inits.set(key, starting);
    starting.then(
      (init) => {
        this.emit(key, 'running');
        void init.exited.then(() => this.ended(key, starting, init));
      },
      (err: unknown) => {
        if (this.inits.get(key) !== starting) return;
        this.inits.delete(key);
        if (!this.closed)
          this.emit(key, 'stopped', err instanceof Error ? err.message : String(err));
      },
    );
    return starting;
  }

  // An init that ended while it was still the VM's (not stopped on purpose): its leftovers
  // (network helper, cgroup) go, and the VM is stopped until something boots it again.
  private ended(key: string, starting: Promise<Init>, init: Init): void {
    if (this.closed || this.inits.get(key) !== starting) return;
    this.inits.delete(key);
    this.paused.delete(key);
    void init.stop().catch(() => {});
    this.emit(key, 'stopped', 'its processes ended');
  }

  private emit(key: string, state: 'running' | 'stopped', reason?: string): void {
    for (const listener of this.listeners) listener(key, state, reason);
  }

  private async start(vm: VmSpec, diskDir: string): Promise<Init> {
    await assertDiskExists(diskDir);
    this.paused.delete(diskDir);
    return this.startInit(vm, diskDir);
  }

  /** Ends the init: its processes are gone once this resolves. */
  protected async stopInit(init: Init): Promise<void> {
    await init.stop();
  }

  // A copy of the VM's disk under way ends first: its freeze would hold the VM's writers, and
  // the copy needs the VM's image mounted until it has thawed.
  protected async stop(vm: VmRef): Promise<void> {
    const key = resolve(vm.diskDir);
    await this.copies.ended(key);
    const current = this.inits.get(key);
    this.inits.delete(key);
    this.paused.delete(key);
    const init = await current?.catch(() => undefined);
    if (init !== undefined) await this.stopInit(init);
  }

  // A renamed VM gets its new hostname in place, set from inside; its processes keep running.
  private async rename(init: Init, name: string): Promise<void> {
    const launch = joinLaunch(this.tools, this.joinTarget(init), {}, ['/bin/hostname', name]);
    const outcome = await runCommand(launch, {});
    if (outcome.exitCode !== 0) {
      throw new Error(
        `could not set the hostname of vm "${name}": ${outcome.launcherErrors.trim()}`,
      );
    }
    init.hostname = name;
  }
}

const ROOT_HOME = { HOME: VM_HOME, USER: 'root' };
