// A seed VM's `limits` (what `resize` sets, and `serve export` writes): each field in the units
// the store keeps, checked against the bounds `resize` applies.
import { MAX_CPUS, MAX_PIDS, MIN_DISK, MIN_MEMORY } from '../rules/limit-values.js';
import type { VmLimitsRecord } from '../store/index.js';
import type { JsonAt } from './json-at.js';

const LIMIT_FIELDS = ['cpus', 'memory_bytes', 'pids', 'disk_bytes'];
const MAX_BYTES = Number.MAX_SAFE_INTEGER;

/** `{"cpus": 1.5, "memory_bytes": ..., "pids": ..., "disk_bytes": ...}`, each optional. */
export function parseLimits(at: JsonAt): Partial<VmLimitsRecord> {
  const fields = at.object(LIMIT_FIELDS);
  const cpus = fields.optional('cpus');
  if (cpus !== undefined) {
    const { value } = cpus;
    const cpuCount = typeof value === 'number' ? value : NaN;
    if (!(cpuCount >= 0.01 && cpuCount <= MAX_CPUS && Number(cpuCount.toFixed(2)) === cpuCount)) {
      cpus.fail(`expected a number of CPUs from 0.01 to ${MAX_CPUS}, at most two decimals`);
    }
  }
  const limits: Partial<VmLimitsRecord> = {
    cpus: cpus?.value as number | undefined,
    memoryBytes: fields.optional('memory_bytes')?.integer(MIN_MEMORY, MAX_BYTES),
    pids: fields.optional('pids')?.integer(1, MAX_PIDS),
    diskBytes: fields.optional('disk_bytes')?.integer(MIN_DISK, MAX_BYTES),
  };
  return Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
}

/** `limits` as a seed writes it: only the fields that differ from `defaults`. */
export function limitsJson(
  limits: VmLimitsRecord,
  defaults: VmLimitsRecord,
): Record<string, number> | undefined {
  const json: Record<string, number> = {};
  if (limits.cpus !== defaults.cpus) json.cpus = limits.cpus;
  if (limits.memoryBytes !== defaults.memoryBytes) json.memory_bytes = limits.memoryBytes;
  if (limits.pids !== defaults.pids) json.pids = limits.pids;
  if (limits.diskBytes !== defaults.diskBytes) json.disk_bytes = limits.diskBytes;
  return Object.keys(json).length === 0 ? undefined : json;
}
