// Resource limits per VM (SPEC §4) with the kernel's cgroups: v2 where the host has the
// unified hierarchy, v1 where controllers are mounted one per folder (as on our machines).
// Every process of a VM is in its cgroup: the launcher joins before it starts the sandbox, and
// each command's launcher joins before it enters the VM, so nothing a VM starts escapes.
import { mkdir, readFile, rmdir, writeFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Limits of one VM; null where the host cannot enforce that limit. */
export interface VmLimits {
  cpus: number | null;
  memoryBytes: number | null;
  pids: number | null;
  diskBytes: number | null;
}

/** What a VM uses now; null where the host cannot tell. */
export interface VmUsage {
  memoryBytes: number | null;
  pids: number | null;
  diskBytes: number | null;
  cpuSeconds: number | null;
}

const CPU_PERIOD_US = 100_000;
const V1_CONTROLLERS = ['memory', 'pids', 'cpu', 'cpuacct', 'freezer'] as const;
type V1Controller = (typeof V1_CONTROLLERS)[number];

/** Where VM cgroups are made on this host. */
export type CgroupHost =
  { kind: 'v2'; parent: string } | { kind: 'v1'; parents: Record<V1Controller, string> };

/**
 * The cgroup layout of this host, or why VMs get no limits here (not root, no controller).
 * v1: VM cgroups nest under the server's own cgroup of each controller, so limits set on the
 * server (a container's, a systemd unit's) still bound its VMs.
 */
export async function detectCgroups(): Promise<CgroupHost | { problem: string }> {
  const mountinfo = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  const own = await readFile('/proc/self/cgroup', 'utf8').catch(() => '');
  const mounts = mountinfo.split('\n').map((line) => {
    const [left = '', right = ''] = line.split(' - ');
    const [fstype = '', , options = ''] = right.split(' ');
    return { point: left.split(' ')[4] ?? '', fstype, options: options.split(',') };
  });
  const v1: Partial<Record<V1Controller, string>> = {};
  for (const controller of V1_CONTROLLERS) {
    const mount = mounts.find((m) => m.fstype === 'cgroup' && m.options.includes(controller));
    const line = own.split('\n').find((l) => l.split(':')[1]?.split(',').includes(controller));
    if (mount !== undefined && line !== undefined) {
      v1[controller] = join(mount.point, line.split(':')[2] ?? '/', 'exectl');
    }
  }
  if (V1_CONTROLLERS.every((c) => v1[c] !== undefined)) {
    const parents = v1 as Record<V1Controller, string>;
    return (await writable(parents.memory)) ? { kind: 'v1', parents } : { problem: 'not root' };
  }
  const unified = mounts.find((m) => m.fstype === 'cgroup2' && m.point === '/sys/fs/cgroup');
  if (unified === undefined) {
    const missing = V1_CONTROLLERS.filter((c) => v1[c] === undefined).join(', ');
    return { problem: `no cgroup v2 hierarchy and no v1 controller ${missing}` };
  }
  const controllers = await readFile('/sys/fs/cgroup/cgroup.controllers', 'utf8').catch(() => '');
  const lacking = ['memory', 'pids', 'cpu'].filter((c) => !controllers.split(/\s/).includes(c));
  if (lacking.length > 0)
    return { problem: `cgroup v2 lacks the ${lacking.join(', ')} controller` };
  const parent = '/sys/fs/cgroup/exectl';
  try {
    await writeFile('/sys/fs/cgroup/cgroup.subtree_control', '+memory +pids +cpu');
    await mkdir(parent, { recursive: true });
    await writeFile(join(parent, 'cgroup.subtree_control'), '+memory +pids +cpu');
  } catch (err) {
    return { problem: `cannot make cgroups (${(err as NodeJS.ErrnoException).code ?? err})` };
  }
  return { kind: 'v2', parent };
}

/** The cgroup of one VM. */
export class VmCgroup {
  private constructor(
    private readonly host: CgroupHost,
    private readonly dirs: string[],
  ) {}

  /** Makes (or finds) the cgroup named `name` and applies `limits`. */
  static async open(host: CgroupHost, name: string, limits: VmLimits): Promise<VmCgroup> {
    const dirs =
      host.kind === 'v2'
        ? [join(host.parent, name)]
        : V1_CONTROLLERS.map((c) => join(host.parents[c], name));
    for (const dir of dirs) await mkdir(dir, { recursive: true });
    const cgroup = new VmCgroup(host, dirs);
    try {
      await cgroup.apply(limits);
    } catch (err) {
      await cgroup.remove();
      throw err;
    }
    return cgroup;
  }

  /** The files a process writes its pid to, to join (all of them, for v1). */
  get procsFiles(): string[] {
    return this.dirs.map((dir) => join(dir, 'cgroup.procs'));
  }

  /** Sets the CPU, memory and process limits (the disk is not a cgroup's). */
  async apply(limits: VmLimits): Promise<void> {
    const quota = limits.cpus === null ? -1 : Math.round(limits.cpus * CPU_PERIOD_US);
    if (this.host.kind === 'v2') {
      const dir = this.dirs[0]!;
      await writeFile(join(dir, 'memory.max'), limitText(limits.memoryBytes));
      await writeFile(join(dir, 'memory.swap.max'), '0').catch(() => {});
      await writeFile(join(dir, 'pids.max'), limitText(limits.pids));
      await writeFile(join(dir, 'cpu.max'), `${quota < 0 ? 'max' : quota} ${CPU_PERIOD_US}`);
      return;
    }
    const [memory, pids, cpu] = this.dirs;
    await writeFile(join(memory!, 'memory.limit_in_bytes'), String(limits.memoryBytes ?? -1));
    await writeFile(join(pids!, 'pids.max'), limitText(limits.pids));
    await writeFile(join(cpu!, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
    await writeFile(join(cpu!, 'cpu.cfs_quota_us'), String(quota));
  }

  /** Memory, process count and CPU time used now. */
  async usage(): Promise<Omit<VmUsage, 'diskBytes'>> {
    const read = (dir: string, file: string) => readFile(join(dir, file), 'utf8').catch(() => '');
    const num = (text: string) => (text.trim() === '' ? null : Number(text.trim()));
    if (this.host.kind === 'v2') {
      const dir = this.dirs[0]!;
      const stat = await read(dir, 'cpu.stat');
      const usec = /^usage_usec (\d+)$/m.exec(stat)?.[1];
      return {
        memoryBytes: num(await read(dir, 'memory.current')),
        pids: num(await read(dir, 'pids.current')),
        cpuSeconds: usec === undefined ? null : Number(usec) / 1e6,
      };
    }
    const [memory, pids, , cpuacct] = this.dirs;
    const ns = num(await read(cpuacct!, 'cpuacct.usage'));
    return {
      memoryBytes: num(await read(memory!, 'memory.usage_in_bytes')),
      pids: num(await read(pids!, 'pids.current')),
      cpuSeconds: ns === null ? null : ns / 1e9,
    };
  }

  /** Freezes (true) or thaws (false) every process of the VM. */
  async freeze(frozen: boolean): Promise<void> {
    if (this.host.kind === 'v2') {
      await writeFile(join(this.dirs[0]!, 'cgroup.freeze'), frozen ? '1' : '0');
      return;
    }
    await writeFile(join(this.dirs[4]!, 'freezer.state'), frozen ? 'FROZEN' : 'THAWED');
  }

  /** Kills every process left in the cgroup and removes it. */
  async remove(): Promise<void> {
    for (let round = 0; round < 200; round++) {
      const pids = await this.members();
      if (pids.length === 0) break;
      // Frozen, a fork bomb cannot outrun the kills; a killed frozen process dies on thaw.
      await this.freeze(true).catch(() => {});
      for (const pid of pids) killQuietly(pid);
      await this.freeze(false).catch(() => {});
      await sleep(5);
    }
    for (const dir of this.dirs) await removeTree(dir);
  }

  private async members(): Promise<number[]> {
    const text = await readFile(this.procsFiles[0]!, 'utf8').catch(() => '');
    return text.split('\n').filter(Boolean).map(Number);
  }
}

function limitText(value: number | null): string {
  return value === null ? 'max' : String(value);
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

async function removeTree(dir: string): Promise<void> {
  const children = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const child of children) if (child.isDirectory()) await removeTree(join(dir, child.name));
  for (let i = 0; i < 50; i++) {
    try {
      await rmdir(dir);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      // EBUSY: the last processes are still exiting.
      await sleep(10);
    }
  }
}

async function writable(dir: string): Promise<boolean> {
  try {
    await mkdir(dir, { recursive: true });
    return true;
  } catch {
    return false;
  }
}
