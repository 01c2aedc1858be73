// What all VMs together may take of the host (SPEC §7, one account's share of the host): every
// VM's cgroup nests in one parent whose limits leave the host a reserve, so no number of VMs
// (each within its own limits) exhausts the host's pids or memory: the server, its database
// and root's shell keep room to work.
import { readFile } from 'node:fs/promises';

/** The parent cgroup's limits: what every VM's cgroup together may hold. */
export interface VmsShare {
  pids: number;
  memoryBytes: number;
}

/** Of the kernel's `pid_max`, the share VMs may hold together. */
export const PIDS_SHARE = 0.8;
/** The memory left to the host beyond every VM's together. */
export const HOST_MEMORY_RESERVE_BYTES = 2 ** 30;

/**
 * The VMs' share of a host whose kernel allows `pidMax` pids and which has `memTotalBytes` of
 * memory: 80 % of the pids, all memory but 1 GiB (half of it on a host of 2 GiB or less, where
 * 1 GiB would leave the VMs next to nothing).
 */
export function vmsShareOf(pidMax: number, memTotalBytes: number): VmsShare {
  const small = memTotalBytes <= 2 * HOST_MEMORY_RESERVE_BYTES;
  return {
    pids: Math.floor(pidMax * PIDS_SHARE),
    memoryBytes: small ? Math.floor(memTotalBytes / 2) : memTotalBytes - HOST_MEMORY_RESERVE_BYTES,
  };
}

/**
 * The VMs' share of this host, from the kernel's `pid_max` file and `meminfo`; a problem when
 * either cannot be read (then the server cannot keep its promise, and says so).
 */
export async function readVmsShare(
  pidMaxFile: string,
  meminfoFile: string,
): Promise<VmsShare | { problem: string }> {
  const pidMax = Number((await readFile(pidMaxFile, 'utf8').catch(() => '')).trim());
  const kib = /^MemTotal:\s+(\d+) kB$/m.exec(await readFile(meminfoFile, 'utf8').catch(() => ''));
  if (!Number.isSafeInteger(pidMax) || pidMax <= 0 || kib === null) {
    return { problem: `cannot read ${pidMaxFile} or the MemTotal of ${meminfoFile}` };
  }
  return vmsShareOf(pidMax, Number(kib[1]) * 1024);
}
