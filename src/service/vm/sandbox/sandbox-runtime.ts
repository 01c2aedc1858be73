// The isolated runtime: each VM is a bubblewrap sandbox whose pid 1 lives as long as the VM;
// every command joins that sandbox's namespaces with nsenter.
//
// Why join with nsenter instead of a new bwrap per command: a command's background processes
// must outlive it, share its /tmp and see the VM's other processes — one pid, mount and ipc
// namespace per VM, which only a long-lived process can own. Why not have pid 1 start commands
// on request: it would be a program of ours inside the VM (a control protocol, and a process
// the VM could disturb); nsenter (util-linux, beside bwrap on every distribution) enters the
// namespaces from outside with no cooperation, and the kernel's pid-namespace rules give
// restart/remove for free: killing pid 1 kills everything that joined.
//
// Two modes (sandbox/tools.ts): `machine` when the server is root (machine/machine-life.ts: id
// ranges, network, disk images, limits), `user` otherwise (a one-id sandbox, host network).
import { resolve } from 'node:path';
import { commandEnv } from '../process/command-env.js';
import { CopiesUnderWay } from '../disk/copies-under-way.js';
import { createVm } from '../create-vm.js';
import { copyFolderDisk, copyMachineDisk } from '../disk/copy.js';
import { assertDiskExists, createDisk, removeDisk } from '../disk/folder-disk.js';
import { joinLaunch, type JoinTarget } from './join-command.js';
import type { MachineInit } from '../machine/machine-boot.js';
import {
  bootMachine,
  createMachineDisk,
  mountedDisk,
  machineState,
  removeMachineDisk,
  resizeStoppedDisk,
  smallestDisk,
} from '../machine/machine-life.js';
import { runCommand, type CommandLaunch } from '../process/run-command.js';
import { clientMountArgs } from './base-system.js';
import { readHostRoot, systemFolderArgs, VM_HOME } from './bwrap-args.js';
import { serverIsRoot, type BwrapTools, type SandboxMode } from './tools.js';
import { SETUP_LOG } from '../setup-script.js';
import {
  findShellTools,
  shellCommand,
  shellEnv,
  sttySizeCommand,
} from '../process/shell-command.js';
import { startShellSession } from '../process/shell-session.js';
import { commandFailed } from '../../../errors.js';
import { DEFAULT_VM_LIMITS, type VmPortTarget, type VmState } from '../contract.js';
import {
  type CreateOptions,
  type ExecOptions,
  type ExecResult,
  type ShellOptions,
  type ShellSession,
  type VmRef,
  type VmRuntime,
  type VmSpec,
  type VmStateListener,
} from '../runtime.js';
import { startVmInit, type VmInit } from './sandbox-init.js';
import type { MountedDisk } from '../disk/watchdog.js';

type RunningVm = VmInit & Partial<MachineInit>;

export class BwrapRuntime implements VmRuntime {
  readonly kind = 'bwrap';
  readonly setupLog = SETUP_LOG;
  private readonly listeners: VmStateListener[] = [];
  // By resolved disk folder. A pending start is shared by every command that needs it.
  private readonly inits = new Map<string, Promise<RunningVm>>();
  private readonly paused = new Set<string>();
  private readonly copies = new CopiesUnderWay();
  private readonly systemArgs = systemFolderArgs(readHostRoot());
  private closed = false;

  constructor(
    private readonly tools: BwrapTools,
    private readonly mode: SandboxMode,
  ) {
    // bwrap run by root maps the VM's root to the host's root: never.
    if (mode.kind === 'user' && serverIsRoot()) {
      throw new Error('a root server runs its VMs as machines (see detectSandboxMode)');
    }
  }

  async create(vm: VmSpec, options: CreateOptions = {}): Promise<void> {
    const mode = this.mode;
    const makeDisk = () =>
      mode.kind === 'machine' ? createMachineDisk(mode, vm) : createDisk(vm.diskDir);
    await createVm(this, vm, options, this.setupLog, makeDisk);
  }

  onStateChange(listener: VmStateListener): void {
    this.listeners.push(listener);
  }

  async boot(vm: VmSpec): Promise<void> {
    await this.running(vm);
  }

  async copy(from: VmSpec, to: VmSpec): Promise<void> {
    const [fromDir, toDir] = [resolve(from.diskDir), resolve(to.diskDir)];
    const mode = this.mode;
    await this.copies.run(fromDir, toDir, async (signal) => {
      await assertDiskExists(fromDir);
      if (mode.kind === 'user') return copyFolderDisk(fromDir, toDir);
      const init = (await this.current(from)) as MachineInit | undefined;
      await copyMachineDisk(mode, fromDir, toDir, init, signal);
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
    return startShellSession(async () => {
      const tools = findShellTools();
      const callEnv = { ...shellEnv(options.pty), ...options.env };
      const inVm = (command: string, env: Readonly<Record<string, string>>) =>
        this.launch(vm, env, ['/bin/sh', '-c', command]);
      return {
        launch: await inVm(shellCommand(tools, options.pty), callEnv),
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
    if (this.mode.kind === 'machine') await removeMachineDisk(this.mode, vm);
    else await removeDisk(vm.diskDir);
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

  async stat(vm: VmSpec): Promise<VmState> {
    const init = await this.current(vm);
    if (this.mode.kind === 'machine') {
      return machineState(this.mode, vm, init as MachineInit | undefined, this.isPaused(vm));
    }
    const none = { cpus: null, memoryBytes: null, pids: null, diskBytes: null };
    const usage = { memoryBytes: null, pids: null, diskBytes: null, cpuSeconds: null };
    return { running: init !== undefined, paused: false, bootedAt: null, limits: none, usage };
  }

  async resize(vm: VmSpec): Promise<void> {
    const mode = this.requireMachine('resize');
    const limits = vm.limits ?? DEFAULT_VM_LIMITS;
    const init = (await this.current(vm)) as MachineInit | undefined;
    const size = (await this.stat(vm)).limits.diskBytes;
    const wanted = limits.diskBytes;
    const diskChanges = wanted !== null && wanted !== size;
    // Checked before anything changes: a refused resize leaves every limit as it was.
    if (diskChanges && size !== null && wanted < size) {
      const minimum = await smallestDisk(mode, vm);
      if (wanted < minimum) {
        const mib = Math.ceil(minimum / 2 ** 20);
        throw commandFailed(`the disk of vm "${vm.name}" cannot be smaller than ${mib}M`, {
          hint: 'it holds that much: delete files in the VM first, or choose a larger size',
        });
      }
    }
    await init?.cgroup?.apply(limits);
    if (!diskChanges) return;
    // ext4 grows online too, but one path for both directions is simpler and always safe.
    await this.stop(vm);
    await resizeStoppedDisk(mode, vm, wanted);
    await this.running(vm);
  }

  async pause(vm: VmSpec, frozen: boolean): Promise<void> {
    this.requireMachine(frozen ? 'pause' : 'resume');
    const init = (await this.running(vm)) as MachineInit;
    if (init.cgroup === null) throw commandFailed('this server has no cgroup freezer');
    await init.cgroup.freeze(frozen);
    const key = resolve(vm.diskDir);
    if (frozen) this.paused.add(key);
    else this.paused.delete(key);
  }

  async portTarget(vm: VmSpec, port: number): Promise<VmPortTarget> {
    const init = await this.running(vm);
    if (init.network === undefined) return { host: '127.0.0.1', port };
    return { socketPath: await init.network.relayTo(port) };
  }

  async mountedDisks(): Promise<MountedDisk[]> {
    if (this.mode.kind !== 'machine') return [];
    // A boot still under way is skipped (the next measure sees it): racing each pending init
    // against one already settled takes only those already booted.
    const settled = Promise.resolve(undefined);
    const found = await Promise.all(
      [...this.inits].map(async ([key, init]) => {
        const booted = await Promise.race([init, settled]).catch(() => undefined);
        return booted?.alive() === true ? mountedDisk(key, booted as MachineInit) : null;
      }),
    );
    return found.filter((disk) => disk !== null);
  }

  /** True while the VM is frozen by `pause`. */
  private isPaused(vm: VmRef): boolean {
    return this.paused.has(resolve(vm.diskDir));
  }

  private requireMachine(what: string) {
    if (this.mode.kind === 'machine') return this.mode;
    throw commandFailed(`${what} needs the server to run as root (VM limits)`);
  }

  /** How to run `argv` with the VM's env plus `callEnv` inside the VM, booting it first. */
  private async launch(
    vm: VmSpec,
    callEnv: Readonly<Record<string, string>>,
    argv: readonly string[],
  ): Promise<CommandLaunch> {
    const init = await this.running(vm);
    if (this.isPaused(vm)) throw commandFailed(`vm "${vm.name}" is paused`);
    if (init.hostname !== vm.name) await this.rename(init, vm.name);
    const env = commandEnv(ROOT_HOME, vm.env, callEnv);
    return joinLaunch(this.tools, this.target(init), env, argv);
  }

  private target(init: RunningVm): JoinTarget {
    const procsFiles = init.cgroup?.procsFiles ?? [];
    return this.mode.kind === 'machine'
      ? { initPid: init.pid, machine: { procsFiles } }
      : { initPid: init.pid };
  }

  /** The VM's running init, if any, without starting it. */
  private async current(vm: VmRef): Promise<RunningVm | undefined> {
    const init = await this.inits.get(resolve(vm.diskDir))?.catch(() => undefined);
    return init?.alive() ? init : undefined;
  }

  /** The VM's sandbox, started when it is not running (first use, after a crash or restart). */
  private async running(vm: VmSpec): Promise<RunningVm> {
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
  private ended(key: string, starting: Promise<RunningVm>, init: RunningVm): void {
    if (this.closed || this.inits.get(key) !== starting) return;
    this.inits.delete(key);
    this.paused.delete(key);
    void init.stop().catch(() => {});
    this.emit(key, 'stopped', 'its processes ended');
  }

  private emit(key: string, state: 'running' | 'stopped', reason?: string): void {
    for (const listener of this.listeners) listener(key, state, reason);
  }

  private async start(vm: VmSpec, diskDir: string): Promise<RunningVm> {
    await assertDiskExists(diskDir);
    this.paused.delete(diskDir);
    if (this.mode.kind === 'machine') return bootMachine(this.mode, vm);
    const client = this.mode.client === undefined ? [] : clientMountArgs(this.mode.client);
    return startVmInit(this.tools, vm.name, diskDir, this.systemArgs, client);
  }

  // A copy of the VM's disk under way ends first: its freeze would hold the VM's writers, and
  // the copy needs the VM's image mounted until it has thawed.
  private async stop(vm: VmRef): Promise<void> {
    const key = resolve(vm.diskDir);
    await this.copies.ended(key);
    const current = this.inits.get(key);
    this.inits.delete(key);
    this.paused.delete(key);
    const init = await current?.catch(() => undefined);
    // A frozen VM's processes die only once thawed.
    await init?.cgroup?.freeze(false).catch(() => {});
    await init?.stop();
  }

  // A renamed VM gets its new hostname in place, set from inside; its processes keep running.
  private async rename(init: RunningVm, name: string): Promise<void> {
    const launch = joinLaunch(this.tools, this.target(init), {}, ['/bin/hostname', name]);
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
