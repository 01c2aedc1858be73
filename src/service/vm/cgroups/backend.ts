// What a VM's cgroup needs from the host's cgroup hierarchy, whatever its version: the seam
// between the VM machinery and v1.ts / v2.ts.

import { MemoryInUse, type EnforcedLimits, type VmUsage } from '../contract.js';
import type { VmsShare } from './host-reserve.js';

export { MemoryInUse };
export type { EnforcedLimits, VmUsage, VmsShare };

/** What a cgroup measures of a VM's use (its disk is not a cgroup's). */
export type CgroupUsage = Omit<VmUsage, 'diskBytes'>;

/** The CPU period of every VM's quota, in microseconds (the kernel's default). */
export const CPU_PERIOD_US = 100_000;

/**
 * The cgroups of one host, of one version. Each VM's cgroup is known by its `name` (a folder
 * under the server's own `exectl` cgroup, in every controller for v1).
 */
export interface CgroupBackend {
  readonly kind: 'v1' | 'v2';
  /**
   * Limits the parent of every VM's cgroup to `share` (pids, and memory with no swap beyond
   * it), so that all VMs together leave the host its reserve (host-reserve.ts).
   */
  limitAll(share: VmsShare): Promise<void>;
  /** Makes the VM's cgroup (or finds it). */
  create(name: string): Promise<void>;
  /**
   * Sets the CPU, memory (swap none beyond it) and process limits.
   * @throws MemoryInUse when the memory limit is below what the kernel can reclaim the VM
   *   down to; then no limit changed.
   */
  apply(name: string, limits: EnforcedLimits): Promise<void>;
  /** Freezes (true) or thaws (false) every process of the VM. */
  freeze(name: string, frozen: boolean): Promise<void>;
  /** Memory, process count and CPU time used now (null for what cannot be read). */
  usage(name: string): Promise<CgroupUsage>;
  /** The files a process writes its own pid to, to join the VM's cgroup (each of them). */
  procsFiles(name: string): string[];
  /** The pids in the VM's cgroup now. */
  members(name: string): Promise<number[]>;
  /** Removes the VM's cgroup folders; their processes must be gone. */
  removeFolders(name: string): Promise<void>;
}
