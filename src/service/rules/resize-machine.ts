import { commandFailed } from '../../errors.js';
import type { VmLimitsRecord, VmRecord } from '../store/index.js';
import { MemoryInUse, type VmMachines } from '../vm/contract.js';

/**
 * Gives the machine of `vm` new limits, as `resize` and `--seed` do. A memory limit below what
 * the VM holds that the kernel cannot reclaim down to changes nothing (SPEC §4).
 * @throws 422 naming what the VM uses then.
 */
export async function resizeMachine(
  machines: VmMachines,
  vm: VmRecord,
  limits: VmLimitsRecord,
): Promise<void> {
  try {
    await machines.resize(vm, limits);
  } catch (err) {
    if (!(err instanceof MemoryInUse)) throw err;
    const used = Math.ceil(err.usedBytes / 2 ** 20);
    throw commandFailed(
      `vm "${vm.name}" uses ${used}M of memory now: resize to more than that, or free memory inside first`,
    );
  }
}
