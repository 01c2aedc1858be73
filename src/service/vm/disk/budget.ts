// How much the running VMs may still write, so that the data folder's free space never falls
// under the floor (SPEC §7). Pure arithmetic; disk/watchdog.ts measures and applies it.
//
// Why shares and a band: VM images are sparse, so their sizes add up to more than the disk.
// Above the floor, the space is split evenly among the running VMs at each measure (so that
// two VMs writing at once can never take more than there is). Under the floor, each VM keeps
// a slice of its own of the band between the floor and the reserve (half the floor, kept for
// the database): the VM that filled the disk has used its slice and is stopped, while every
// other VM can still write its own slice.

const GIB = 2 ** 30;

/**
 * The floor for a data folder file system of `sizeBytes`: 5 % of it, at least 1 GiB, but never
 * more than a tenth of it (a small disk would otherwise be all floor).
 */
export function diskFloor(sizeBytes: number): number {
  return Math.floor(Math.min(Math.max(GIB, sizeBytes * 0.05), sizeBytes * 0.1));
}

/** One running VM's disk as last measured. */
export interface VmDiskUse {
  /** What the VM's own file system holds, data not yet written out included. */
  usedBytes: number;
  /** What its image takes on the host. */
  allocatedBytes: number;
  /**
   * Its footprint (max of the two above) at the last measure with free space above the floor:
   * what it grew by since is what it took of its band slice.
   */
  baseBytes: number;
}

/** The room of the data folder, net of what the VMs hold but have not written out yet. */
export function netFree(hostFreeBytes: number, vms: readonly VmDiskUse[]): number {
  const pending = vms.reduce((sum, vm) => sum + Math.max(0, vm.usedBytes - vm.allocatedBytes), 0);
  return hostFreeBytes - pending;
}

/** A VM's footprint on the host once all it holds is written out. */
export function footprint(vm: VmDiskUse): number {
  return Math.max(vm.usedBytes, vm.allocatedBytes);
}

/**
 * How many more bytes each of `vms` may write until the next measure, given the net free space
 * (see {@link netFree}) and the floor. The sum never exceeds what lies above the reserve.
 */
export function allowances(free: number, floor: number, vms: readonly VmDiskUse[]): number[] {
  if (vms.length === 0) return [];
  const reserve = Math.floor(floor / 2);
  const slice = (floor - reserve) / vms.length;
  const above = Math.max(0, free - floor) / vms.length;
  const wanted = vms.map((vm) =>
    free >= floor ? above + slice : Math.max(0, slice - (footprint(vm) - vm.baseBytes)),
  );
  const total = wanted.reduce((sum, n) => sum + n, 0);
  const room = Math.max(0, free - reserve);
  const scale = total > room ? room / total : 1;
  return wanted.map((n) => Math.floor(n * scale));
}
