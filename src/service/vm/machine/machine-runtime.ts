// The machines of a root server: each VM has its own id range, disk image, cgroup limits and
// network (machine-life.ts, machine-boot.ts). The lifecycle it shares with the sandbox of an
// ordinary user is sandbox/init-runtime.ts's.
import { commandFailed } from '../../../errors.js';
import type { Socket } from 'node:net';
import { DEFAULT_VM_LIMITS, type VmState } from '../contract.js';
import { copyMachineDisk } from '../disk/index.js';
import type { MountedDisk } from '../disk/index.js';
import type { RuntimeCapability, VmSpec } from '../runtime.js';
import { InitRuntime } from '../sandbox/index.js';
import type { JoinTarget } from '../sandbox/index.js';
import type { MachineHost } from './machine-host.js';
import type { MachineInit } from './machine-boot.js';
import {
  bootMachine,
  createMachineDisk,
  machineState,
  mountedDisk,
  removeMachineDisk,
  resizeStoppedDisk,
  smallestDisk,
} from './machine-life.js';

export class MachineRuntime extends InitRuntime<MachineInit> {
  constructor(private readonly host: MachineHost) {
    super(host.tools);
  }

  // Limits apply where the host has cgroups; a disk resizes everywhere.
  cannot(what: RuntimeCapability): string | null {
    if (what === 'pause' && this.host.cgroups === null) return 'this server has no cgroup freezer';
    return null;
  }

  async stat(vm: VmSpec): Promise<VmState> {
    return machineState(this.host, vm, await this.current(vm), this.isPaused(vm));
  }

  async resize(vm: VmSpec): Promise<void> {
    const limits = vm.limits ?? DEFAULT_VM_LIMITS;
    const init = await this.current(vm);
    const size = (await this.stat(vm)).limits.diskBytes;
    const wanted = limits.diskBytes;
    const diskChanges = wanted !== size;
    // Checked before anything changes: a refused resize leaves every limit as it was.
    if (diskChanges && size !== null && wanted < size) {
      const minimum = await smallestDisk(this.host, vm);
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
    await resizeStoppedDisk(this.host, vm, wanted);
    await this.running(vm);
  }

  async pause(vm: VmSpec, frozen: boolean): Promise<void> {
    const init = await this.running(vm);
    if (init.cgroup === null) throw commandFailed(this.cannot('pause') ?? 'no cgroup freezer');
    await init.cgroup.freeze(frozen);
    this.setPaused(vm, frozen);
  }

  // Through the door into its network namespace: never a port of the host.
  async connect(vm: VmSpec, port: number): Promise<Socket> {
    const init = await this.running(vm);
    return init.network.connect(port);
  }

  // A boot still under way is skipped: the next measure sees it.
  async mountedDisks(): Promise<MountedDisk[]> {
    return (await this.bootedInits()).map(([key, init]) => mountedDisk(key, init));
  }

  protected makeDisk(vm: VmSpec): Promise<void> {
    return createMachineDisk(this.host, vm);
  }

  protected copyDisk(
    fromDir: string,
    toDir: string,
    running: MachineInit | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    return copyMachineDisk(this.host, fromDir, toDir, running, signal);
  }

  protected deleteDisk(vm: VmSpec): Promise<void> {
    return removeMachineDisk(this.host, vm);
  }

  protected startInit(vm: VmSpec): Promise<MachineInit> {
    return bootMachine(this.host, vm);
  }

  protected joinTarget(init: MachineInit): JoinTarget {
    return { initPid: init.pid, machine: { procsFiles: init.cgroup?.procsFiles ?? [] } };
  }

  // A frozen VM's processes die only once thawed.
  protected override async stopInit(init: MachineInit): Promise<void> {
    await init.cgroup?.freeze(false).catch(() => {});
    await init.stop();
  }
}
