// The operator's ceilings on a VM's limits (SPEC §7: `--max-vm-memory`, `--max-vm-cpus`,
// `--max-vm-disk`), defaulting to the host's size: a VM may never be promised more memory,
// CPUs or disk than the host has.
import { statfsSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { commandFailed } from '../../errors.js';
import { exactBytes, humanBytes } from './limit-values.js';
import { DEFAULT_VM_LIMITS, type VmLimitsRecord } from '../store/vm-records.js';

/** The most a VM may get of each limit. */
export interface VmCeilings {
  cpus: number;
  memoryBytes: number;
  diskBytes: number;
}

/**
 * `given` with each ceiling it lacks set to the host's size: its CPU count, its memory, and the
 * size of the file system that holds `dataDir` (where VM images live).
 */
export function resolveCeilings(given: Partial<VmCeilings>, dataDir: string): VmCeilings {
  const fs = given.diskBytes === undefined ? statfsSync(dataDir) : undefined;
  return {
    cpus: given.cpus ?? availableParallelism(),
    memoryBytes: given.memoryBytes ?? totalmem(),
    diskBytes: given.diskBytes ?? fs!.blocks * fs!.bsize,
  };
}

const MIB = 2 ** 20;

type Field = 'cpus' | 'memoryBytes' | 'diskBytes';

// `exact` shows the value asked for as given; `show` the ceiling (the host's size is no round
// number), rounded down.
const FIELDS: readonly {
  field: Field;
  flag: string;
  ceilingFlag: string;
  exact: (n: number) => string;
  show: (n: number) => string;
}[] = [
  {
    field: 'cpus',
    flag: '--cpu',
    ceilingFlag: '--max-vm-cpus',
    exact: String,
    show: (n) => `${n} CPUs`,
  },
  {
    field: 'memoryBytes',
    flag: '--memory',
    ceilingFlag: '--max-vm-memory',
    exact: exactBytes,
    show: humanBytes,
  },
  {
    field: 'diskBytes',
    flag: '--disk',
    ceilingFlag: '--max-vm-disk',
    exact: exactBytes,
    show: humanBytes,
  },
];

/**
 * Refuses (422, naming the ceiling) each limit of `limits` that differs from `before` and is
 * above its ceiling: `resize` and a seed's limits. A limit left as it was is never refused.
 */
export function checkCeilings(
  limits: VmLimitsRecord,
  before: VmLimitsRecord,
  ceilings: Partial<VmCeilings>,
): void {
  for (const { field, flag, ceilingFlag, exact, show } of FIELDS) {
    const ceiling = ceilings[field];
    if (ceiling === undefined || limits[field] === before[field] || limits[field] <= ceiling)
      continue;
    throw commandFailed(
      `${flag} ${exact(limits[field])} is above this server's ceiling of ${show(ceiling)} (${ceilingFlag})`,
      { hint: `choose at most ${show(ceiling)}, or ask the operator to raise ${ceilingFlag}` },
    );
  }
}

/**
 * A new VM's limits within the ceilings: a default above its ceiling is lowered to it (a small
 * host still makes VMs); any other value above its ceiling is refused as {@link checkCeilings}.
 */
export function fitCeilings(limits: VmLimitsRecord, ceilings: Partial<VmCeilings>): VmLimitsRecord {
  const fitted = { ...limits };
  for (const { field } of FIELDS) {
    const ceiling = ceilings[field];
    if (
      ceiling !== undefined &&
      fitted[field] === DEFAULT_VM_LIMITS[field] &&
      fitted[field] > ceiling
    )
      // Sizes in whole MiB, as `resize` takes them (and an image's size must be whole blocks).
      fitted[field] = field === 'cpus' ? ceiling : Math.floor(ceiling / MIB) * MIB;
  }
  checkCeilings(fitted, DEFAULT_VM_LIMITS, ceilings);
  return fitted;
}
