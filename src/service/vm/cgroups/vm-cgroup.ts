// The cgroup of one VM, on whichever backend the host has. Every process of a VM is in it: the
// launcher joins before it starts the sandbox, and each command's launcher joins before it
// enters the VM, so nothing a VM starts escapes.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CgroupBackend, CgroupUsage, EnforcedLimits } from './backend.js';

/** The cgroup of one VM. */
export class VmCgroup {
  private constructor(
    private readonly host: CgroupBackend,
    private readonly name: string,
  ) {}

  /**
   * Makes (or finds) the cgroup named `name` and applies `limits`; a cgroup whose limits
   * cannot be applied is removed again.
   */
  static async open(host: CgroupBackend, name: string, limits: EnforcedLimits): Promise<VmCgroup> {
    await host.create(name);
    const cgroup = new VmCgroup(host, name);
    try {
      await cgroup.apply(limits);
    } catch (err) {
      await cgroup.remove();
      throw err;
    }
    return cgroup;
  }

  /** The files a process writes its pid to, to join (one per hierarchy on v1). */
  get procsFiles(): string[] {
    return this.host.procsFiles(this.name);
  }

  /**
   * Sets the CPU, memory and process limits (the disk is not a cgroup's).
   * @throws MemoryInUse when memory is cut below what the VM holds; nothing changed then.
   */
  apply(limits: EnforcedLimits): Promise<void> {
    return this.host.apply(this.name, limits);
  }

  /** Memory, process count and CPU time used now. */
  usage(): Promise<CgroupUsage> {
    return this.host.usage(this.name);
  }

  /** Freezes (true) or thaws (false) every process of the VM. */
  freeze(frozen: boolean): Promise<void> {
    return this.host.freeze(this.name, frozen);
  }

  /** Kills every process left in the cgroup and removes it. */
  async remove(): Promise<void> {
    for (let round = 0; round < 200; round++) {
      const pids = await this.host.members(this.name);
      if (pids.length === 0) break;
      // Frozen, a fork bomb cannot outrun the kills; a killed frozen process dies on thaw.
      await this.freeze(true).catch(() => {});
      for (const pid of pids) killQuietly(pid);
      await this.freeze(false).catch(() => {});
      await sleep(5);
    }
    await this.host.removeFolders(this.name);
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}
