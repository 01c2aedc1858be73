// Resource limits per VM (SPEC §4) with the kernel's cgroups: v1 where controllers are mounted
// one per folder (as on our machines), else v2 where the host has the unified hierarchy. The
// backend is chosen once, at server start, by what the host offers.
import { readFile } from 'node:fs/promises';
import type { CgroupBackend } from './backend.js';
import { readVmsShare } from './host-reserve.js';
import { parseMountinfo } from './mounts.js';
import { V1Cgroups } from './v1.js';
import { V2Cgroups } from './v2.js';

export {
  MemoryInUse,
  type CgroupBackend,
  type CgroupUsage,
  type EnforcedLimits,
  type VmUsage,
  type VmsShare,
} from './backend.js';
export { vmsShareOf } from './host-reserve.js';
export { VmCgroup } from './vm-cgroup.js';
export { V1Cgroups } from './v1.js';
export { V2Cgroups } from './v2.js';

/** Where VM cgroups are made on this host. */
export type CgroupHost = CgroupBackend;

/** Where the host's cgroups are described and mounted (tests point these at a fake). */
export interface CgroupSources {
  /** mountinfo of the server's mount namespace. */
  mountinfo: string;
  /** The server's own cgroups (`/proc/self/cgroup`). */
  ownCgroup: string;
  /** Where the unified (v2) hierarchy must be mounted to be used. */
  root: string;
  /** The kernel's `pid_max` and the host's `meminfo`: what the VMs' parent leaves the host. */
  pidMax: string;
  meminfo: string;
}

const HOST: CgroupSources = {
  mountinfo: '/proc/self/mountinfo',
  ownCgroup: '/proc/self/cgroup',
  root: '/sys/fs/cgroup',
  pidMax: '/proc/sys/kernel/pid_max',
  meminfo: '/proc/meminfo',
};

/**
 * The cgroup backend of this host, its VMs' parent limited to their share of the host
 * (host-reserve.ts), or why VMs get no limits here (not root, no controller, a parent that
 * cannot be limited): v1 when every controller VMs need has a v1 hierarchy, else v2 when the
 * unified hierarchy at `root` has them.
 */
export async function detectCgroups(
  sources: CgroupSources = HOST,
): Promise<CgroupHost | { problem: string }> {
  const found = await findBackend(sources);
  if ('problem' in found) return found;
  const share = await readVmsShare(sources.pidMax, sources.meminfo);
  if ('problem' in share) return share;
  try {
    await found.limitAll(share);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? String(err);
    return { problem: `the parent cgroup of the VMs cannot be limited (${why})` };
  }
  return found;
}

async function findBackend(sources: CgroupSources): Promise<CgroupHost | { problem: string }> {
  const mounts = parseMountinfo(await readFile(sources.mountinfo, 'utf8').catch(() => ''));
  const own = await readFile(sources.ownCgroup, 'utf8').catch(() => '');
  const v1 = await V1Cgroups.find(mounts, own);
  if (!('missing' in v1)) return v1;
  if (!mounts.some((m) => m.fstype === 'cgroup2' && m.point === sources.root)) {
    return { problem: `no cgroup v2 hierarchy and no v1 controller ${v1.missing.join(', ')}` };
  }
  return V2Cgroups.find(sources.root);
}
