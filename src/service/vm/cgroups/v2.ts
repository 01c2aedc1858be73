// cgroup v2: one unified hierarchy, each VM a folder under `<root>/exectl`.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
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
  readNumber,
  readPids,
  readText,
  removeTree,
} from './files.js';

const CONTROLLERS = ['memory', 'pids', 'cpu'];
const ENABLE = CONTROLLERS.map((c) => `+${c}`).join(' ');

/** The VM cgroups of a v2 host, under one parent folder. */
export class V2Cgroups implements CgroupBackend {
  readonly kind = 'v2';

  /**
   * @param parent the folder VM cgroups go in, its controllers enabled for its children
   * @param swapAccounting whether the kernel counts swap (`memory.swap.max` exists)
   */
  constructor(
    readonly parent: string,
    private readonly swapAccounting: boolean,
  ) {}

  /**
   * The unified hierarchy mounted at `root` with the memory, pids and cpu controllers, made
   * ready for VM cgroups (`<root>/exectl`, the controllers enabled down to it); or why not.
   */
  static async find(root: string): Promise<V2Cgroups | { problem: string }> {
    const controllers = await readFile(join(root, 'cgroup.controllers'), 'utf8').catch(() => '');
    const lacking = CONTROLLERS.filter((c) => !controllers.split(/\s/).includes(c));
    if (lacking.length > 0) {
      return { problem: `cgroup v2 lacks the ${lacking.join(', ')} controller` };
    }
    const parent = join(root, 'exectl');
    try {
      await writeFile(join(root, 'cgroup.subtree_control'), ENABLE);
      await mkdir(parent, { recursive: true });
      await writeFile(join(parent, 'cgroup.subtree_control'), ENABLE);
    } catch (err) {
      return { problem: `cannot make cgroups (${errnoOf(err) ?? String(err)})` };
    }
    return new V2Cgroups(parent, await fileExists(join(parent, 'memory.swap.max')));
  }

  async limitAll(share: VmsShare): Promise<void> {
    await writeFile(join(this.parent, 'pids.max'), String(share.pids));
    await this.setMemory(this.parent, share.memoryBytes);
  }

  async create(name: string): Promise<void> {
    await mkdir(this.dir(name), { recursive: true });
  }

  async apply(name: string, limits: EnforcedLimits): Promise<void> {
    const dir = this.dir(name);
    // Memory first: the only limit that may be refused, so a refusal changes nothing.
    await this.setMemory(dir, limits.memoryBytes);
    await writeFile(join(dir, 'pids.max'), limitText(limits.pids));
    const quota = limits.cpus === null ? 'max' : String(Math.round(limits.cpus * CPU_PERIOD_US));
    await writeFile(join(dir, 'cpu.max'), `${quota} ${CPU_PERIOD_US}`);
  }

  async freeze(name: string, frozen: boolean): Promise<void> {
    await writeFile(join(this.dir(name), 'cgroup.freeze'), frozen ? '1' : '0');
  }

  async usage(name: string): Promise<CgroupUsage> {
    const dir = this.dir(name);
    const usec = /^usage_usec (\d+)$/m.exec(await readText(dir, 'cpu.stat'))?.[1];
    return {
      memoryBytes: await readNumber(dir, 'memory.current'),
      pids: await readNumber(dir, 'pids.current'),
      cpuSeconds: usec === undefined ? null : Number(usec) / 1e6,
    };
  }

  procsFiles(name: string): string[] {
    return [join(this.dir(name), 'cgroup.procs')];
  }

  members(name: string): Promise<number[]> {
    return readPids(this.dir(name));
  }

  removeFolders(name: string): Promise<void> {
    return removeTree(this.dir(name));
  }

  private dir(name: string): string {
    return join(this.parent, name);
  }

  // A memory.max below what the VM holds makes the kernel reclaim and then kill inside the
  // VM; v1 instead refuses (EBUSY) what it cannot reclaim. To agree with v1, memory.high goes
  // first: writing it reclaims down to it (throttling, never killing), and when the VM still
  // holds more, the cut is refused with nothing changed. No swap beyond the limit, as on v1.
  private async setMemory(dir: string, bytes: number | null): Promise<void> {
    if (bytes !== null) {
      await writeFile(join(dir, 'memory.high'), String(bytes));
      const used = await readNumber(dir, 'memory.current');
      if (used !== null && used > bytes) {
        await writeFile(join(dir, 'memory.high'), 'max');
        throw new MemoryInUse(used);
      }
    }
    await writeFile(join(dir, 'memory.max'), limitText(bytes));
    if (bytes !== null) await writeFile(join(dir, 'memory.high'), 'max');
    if (this.swapAccounting) {
      await writeFile(join(dir, 'memory.swap.max'), bytes === null ? 'max' : '0');
    }
  }
}
