// The sandbox of an ordinary user (a server that is not root): each VM is a one-id user
// namespace on the host's network with a folder disk, and no limits (SPEC §4's degraded mode).
// The lifecycle it shares with machine VMs is init-runtime.ts's.
import { commandFailed } from '../../../errors.js';
import type { Socket } from 'node:net';
import type { VmState } from '../contract.js';
import { connectLoopback } from '../network/index.js';
import { copyFolderDisk } from '../disk/index.js';
import { createDisk, removeDisk } from '../disk/index.js';
import type { MountedDisk } from '../disk/index.js';
import type { RuntimeCapability, VmSpec } from '../runtime.js';
import { clientMountArgs, type ClientMounts } from './base-system.js';
import { readHostRoot, systemFolderArgs } from './bwrap-args.js';
import { InitRuntime } from './init-runtime.js';
import type { JoinTarget } from './join-command.js';
import { startVmInit, type VmInit } from './sandbox-init.js';
import { serverIsRoot, type BwrapTools } from './tools.js';

export class SandboxRuntime extends InitRuntime<VmInit> {
  private readonly systemArgs = systemFolderArgs(readHostRoot());
  private readonly clientArgs: string[];

  /** `client`: the exectl client to show inside (absent: none). */
  constructor(tools: BwrapTools, client?: ClientMounts) {
    super(tools);
    // bwrap run by root maps the VM's root to the host's root: never.
    if (serverIsRoot()) {
      throw new Error('a root server runs its VMs as machines (see detectSandboxMode)');
    }
    this.clientArgs = client === undefined ? [] : clientMountArgs(client);
  }

  cannot(what: RuntimeCapability): string | null {
    return what === 'resize'
      ? 'resize needs the server to run as root (VM limits)'
      : 'pause and resume need the server to run as root (VM limits)';
  }

  async stat(vm: VmSpec): Promise<VmState> {
    const init = await this.current(vm);
    const none = { cpus: null, memoryBytes: null, pids: null, diskBytes: null };
    const usage = { memoryBytes: null, pids: null, diskBytes: null, cpuSeconds: null };
    return { running: init !== undefined, paused: false, bootedAt: null, limits: none, usage };
  }

  async resize(): Promise<void> {
    throw commandFailed(this.cannot('resize')!);
  }

  async pause(): Promise<void> {
    throw commandFailed(this.cannot('pause')!);
  }

  // The VM shares the host's network.
  async connect(vm: VmSpec, port: number): Promise<Socket> {
    await this.running(vm);
    return connectLoopback(port);
  }

  // Its disks are folders of the data folder itself: no image to cap (admission only).
  async mountedDisks(): Promise<MountedDisk[]> {
    return [];
  }

  protected makeDisk(vm: VmSpec): Promise<void> {
    return createDisk(vm.diskDir);
  }

  protected copyDisk(fromDir: string, toDir: string): Promise<void> {
    return copyFolderDisk(fromDir, toDir);
  }

  protected deleteDisk(vm: VmSpec): Promise<void> {
    return removeDisk(vm.diskDir);
  }

  protected startInit(vm: VmSpec, diskDir: string): Promise<VmInit> {
    return startVmInit(this.tools, vm.name, diskDir, this.systemArgs, this.clientArgs);
  }

  protected joinTarget(init: VmInit): JoinTarget {
    return { initPid: init.pid };
  }
}
