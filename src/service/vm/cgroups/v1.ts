// cgroup v1: one hierarchy per controller (as on our machines: memory/, pids/, cpu/ or
// cpu,cpuacct/, freezer/), each VM a folder in each.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CPU_PERIOD_US,
  MemoryInUse,
  type CgroupBackend,
  type CgroupUsage,
  type EnforcedLimits,
  type VmsShare,
} from './backend.js';
import {
  errnoOf,
  fileExists,
  limitText,
  makeable,
  readNumber,
  readPids,
  readText,
  removeTree,
} from './files.js';
import type { Mount } from './mounts.js';

export const V1_CONTROLLERS = ['memory', 'pids', 'cpu', 'cpuacct', 'freezer'] as const;
export type V1Controller = (typeof V1_CONTROLLERS)[number];
const MEMSW = 'memory.memsw.limit_in_bytes';

/** The VM cgroups of a v1 host: a parent folder per controller (co-mounted ones share one). */
export class V1Cgroups implements CgroupBackend {
  readonly kind = 'v1';

  /**
   * @param parents where VM cgroups go in each controller's hierarchy
   * @param swapAccounting whether the kernel counts swap (`memory.memsw.*` exist)
   */
  constructor(
    readonly parents: Readonly<Record<V1Controller, string>>,
    private readonly swapAccounting: boolean,
  ) {}

  /**
   * The v1 hierarchies of this host, from its mounts and the server's own cgroups: VM cgroups
   * nest under the server's own cgroup of each controller, so limits set on the server (a
   * container's, a systemd unit's) still bound its VMs. Undefined when a controller is not
   * mounted; a problem when the parents cannot be made (not root).
   */
  static async find(
    mounts: readonly Mount[],
    ownCgroup: string,
  ): Promise<V1Cgroups | { problem: string } | { missing: V1Controller[] }> {
    const parents: Partial<Record<V1Controller, string>> = {};
    for (const controller of V1_CONTROLLERS) {
      const mount = mounts.find((m) => m.fstype === 'cgroup' && m.options.includes(controller));
      const line = ownCgroup
        .split('\n')
        .find((l) => l.split(':')[1]?.split(',').includes(controller));
      if (mount !== undefined && line !== undefined) {
        parents[controller] = join(mount.point, line.split(':')[2] ?? '/', 'exectl');
      }
    }
    const missing = V1_CONTROLLERS.filter((c) => parents[c] === undefined);
    if (missing.length > 0) return { missing };
    const found = parents as Record<V1Controller, string>;
    if (!(await makeable(found.memory))) return { problem: 'not root' };
    return new V1Cgroups(found, await fileExists(join(found.memory, MEMSW)));
  }

  async limitAll(share: VmsShare): Promise<void> {
    await mkdir(this.parents.pids, { recursive: true });
    await writeFile(join(this.parents.pids, 'pids.max'), String(share.pids));
    await mkdir(this.parents.memory, { recursive: true });
    await this.setMemory(this.parents.memory, share.memoryBytes);
  }

  async create(name: string): Promise<void> {
    for (const dir of this.dirs(name)) await mkdir(dir, { recursive: true });
  }

  async apply(name: string, limits: EnforcedLimits): Promise<void> {
    // Memory first: the only limit the kernel may refuse, so a refusal changes nothing.
    await this.setMemory(this.dir('memory', name), limits.memoryBytes);
    await writeFile(join(this.dir('pids', name), 'pids.max'), limitText(limits.pids));
    const cpu = this.dir('cpu', name);
    const quota = limits.cpus === null ? -1 : Math.round(limits.cpus * CPU_PERIOD_US);
    await writeFile(join(cpu, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
    await writeFile(join(cpu, 'cpu.cfs_quota_us'), String(quota));
  }

  async freeze(name: string, frozen: boolean): Promise<void> {
    await writeFile(join(this.dir('freezer', name), 'freezer.state'), frozen ? 'FROZEN' : 'THAWED');
  }

  async usage(name: string): Promise<CgroupUsage> {
    const ns = await readNumber(this.dir('cpuacct', name), 'cpuacct.usage');
    return {
      memoryBytes: await readNumber(this.dir('memory', name), 'memory.usage_in_bytes'),
      pids: await readNumber(this.dir('pids', name), 'pids.current'),
      cpuSeconds: ns === null ? null : ns / 1e9,
    };
  }

  procsFiles(name: string): string[] {
    return this.dirs(name).map((dir) => join(dir, 'cgroup.procs'));
  }

  members(name: string): Promise<number[]> {
    return readPids(this.dir('memory', name));
  }

  async removeFolders(name: string): Promise<void> {
    for (const dir of this.dirs(name)) await removeTree(dir);
  }

  private dir(controller: V1Controller, name: string): string {
    return join(this.parents[controller], name);
  }

  /** One folder per hierarchy: co-mounted controllers (cpu,cpuacct) share theirs. */
  private dirs(name: string): string[] {
    return [...new Set(V1_CONTROLLERS.map((c) => this.dir(c, name)))];
  }

  // No swap beyond the limit, as on v2 (memory.swap.max 0): memory+swap gets the same limit.
  // The kernel wants memsw >= memory at every step, so a raise sets memsw first and a cut
  // sets memory first; a cut the kernel cannot reclaim down to fails with EBUSY.
  private async setMemory(dir: string, bytes: number | null): Promise<void> {
    const value = bytes === null ? '-1' : String(bytes);
    const before = (await readText(dir, 'memory.limit_in_bytes')).trim();
    const write = (file: string) =>
      writeFile(join(dir, file), value).catch(async (err: unknown) => {
        if (errnoOf(err) !== 'EBUSY') throw err;
        const used = (await readNumber(dir, file.replace('limit_in_bytes', 'usage_in_bytes'))) ?? 0;
        throw new MemoryInUse(used);
      });
    const raising = bytes === null || before === '' || Number(before) <= bytes;
    if (!this.swapAccounting) return write('memory.limit_in_bytes');
    if (raising) {
      await write(MEMSW);
      await write('memory.limit_in_bytes');
      return;
    }
    await write('memory.limit_in_bytes');
    try {
      await write(MEMSW);
    } catch (err) {
      // Swap holds what memory gave back: the memory limit goes back as it was.
      await writeFile(join(dir, 'memory.limit_in_bytes'), before);
      throw err;
    }
  }
}
