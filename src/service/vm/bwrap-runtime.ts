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
import { resolve } from 'node:path';
import { commandEnv } from './command-env.js';
import { createVm } from './create-vm.js';
import { assertDiskExists, createDisk, ensureDiskOwner, removeDisk } from './disk.js';
import { hostnameArgv, joinArgv } from './init-launch.js';
import { runCommand } from './run-command.js';
import { readHostRoot, systemFolderArgs, VM_HOME } from './sandbox-args.js';
import type { BwrapTools, SandboxIdentity } from './sandbox-identity.js';
import { findShellTools, shellCommand, shellEnv, sttySizeCommand } from './shell-launch.js';
import { startShellSession } from './shell-session.js';
import type {
  CreateOptions,
  ExecOptions,
  ExecResult,
  ShellOptions,
  ShellSession,
  VmRef,
  VmRuntime,
  VmSpec,
} from './types.js';
import { startVmInit, type VmInit } from './vm-init.js';

export class BwrapRuntime implements VmRuntime {
  readonly kind = 'bwrap';
  // By resolved disk folder. A pending start is shared by every command that needs it.
  private readonly inits = new Map<string, Promise<VmInit>>();
  private readonly systemArgs = systemFolderArgs(readHostRoot());
  private closed = false;

  constructor(
    private readonly tools: BwrapTools,
    private readonly identity: SandboxIdentity,
  ) {}

  async create(vm: VmSpec, options: CreateOptions = {}): Promise<void> {
    const owner = this.identity.serverIsRoot ? this.identity : undefined;
    await createVm(this, vm, options, () => createDisk(vm.diskDir, owner));
  }

  async exec(vm: VmSpec, command: string, options: ExecOptions = {}): Promise<ExecResult> {
    options.signal?.throwIfAborted();
    const init = await this.running(vm);
    if (init.hostname !== vm.name) await this.rename(init, vm.name);
    const argv = joinArgv(this.tools, this.identity, init.pid, command);
    const env = commandEnv(ROOT_HOME, vm.env, options.env);
    const outcome = await runCommand({ argv, env, cwd: '/' }, options);
    if (outcome.launcherErrors !== '' && !outcome.aborted) {
      throw new Error(`could not enter vm "${vm.name}": ${outcome.launcherErrors.trim()}`);
    }
    const { exitCode, signal, aborted } = outcome;
    return signal === undefined ? { exitCode, aborted } : { exitCode, signal, aborted };
  }

  shell(vm: VmSpec, options: ShellOptions): ShellSession {
    return startShellSession(async () => {
      const tools = findShellTools();
      const init = await this.running(vm);
      if (init.hostname !== vm.name) await this.rename(init, vm.name);
      const env = commandEnv(ROOT_HOME, vm.env, { ...shellEnv(options.pty), ...options.env });
      // The resize runs inside the VM, as its root without privileges, like any command: the
      // terminal's name came from inside, and the host's root never opens a VM's file.
      const inVm = (command: string) => joinArgv(this.tools, this.identity, init.pid, command);
      return {
        launch: { argv: inVm(shellCommand(tools, options.pty)), env, cwd: '/' },
        resizeTty: async (tty, size) => {
          const argv = inVm(`exec ${sttySizeCommand(tools, tty, size)}`);
          const outcome = await runCommand({ argv, env: {}, cwd: '/' }, {});
          if (outcome.exitCode !== 0) throw new Error(`stty ended with ${outcome.exitCode}`);
        },
        launchFailed: (errors) => new Error(`could not enter vm "${vm.name}": ${errors}`),
      };
    }, options);
  }

  async restart(vm: VmRef): Promise<void> {
    await this.stop(vm);
    await this.running(vm);
  }

  async remove(vm: VmRef): Promise<void> {
    await this.stop(vm);
    await removeDisk(vm.diskDir);
  }

  async shutdown(): Promise<void> {
    this.closed = true;
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

  /** The VM's sandbox, started when it is not running (first use, after a crash or restart). */
  private async running(vm: VmRef): Promise<VmInit> {
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
    starting.catch(() => {
      if (this.inits.get(key) === starting) this.inits.delete(key);
    });
    return starting;
  }

  private async start(vm: VmRef, diskDir: string): Promise<VmInit> {
    await assertDiskExists(diskDir);
    if (this.identity.serverIsRoot) await ensureDiskOwner(diskDir, this.identity);
    return startVmInit(this.tools, this.identity, vm.name, diskDir, this.systemArgs);
  }

  private async stop(vm: VmRef): Promise<void> {
    const key = resolve(vm.diskDir);
    const current = this.inits.get(key);
    this.inits.delete(key);
    const init = await current?.catch(() => undefined);
    await init?.stop();
  }

  // A renamed VM gets its new hostname in place; its processes keep running.
  private async rename(init: VmInit, name: string): Promise<void> {
    const argv = hostnameArgv(this.tools, this.identity, init.pid, name);
    const outcome = await runCommand({ argv, env: {}, cwd: '/' }, {});
    if (outcome.exitCode !== 0) {
      throw new Error(
        `could not set the hostname of vm "${name}": ${outcome.launcherErrors.trim()}`,
      );
    }
    init.hostname = name;
  }
}

const ROOT_HOME = { HOME: VM_HOME, USER: 'root' };
