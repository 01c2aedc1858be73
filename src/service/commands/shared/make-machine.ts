import type { LogSink } from '../../config.js';
import type { VmMachines } from '../../deps.js';
import type { Store, VmRecord } from '../../store/index.js';

/**
 * Makes the machine of a freshly stored VM record (disk, sandbox, setup script once) and
 * returns the record as `running`. All or nothing: when that fails or `signal` aborts, the
 * machine is removed, then the record, and the original failure is thrown. If the removal
 * itself fails, it is logged and the record is kept, so `rm` can try again. Used by `new` and
 * by `--seed`, so a VM is born the same way from either.
 */
export async function makeMachineOrDiscard(
  { store, machines }: { store: Store; machines: VmMachines },
  vm: VmRecord,
  signal: AbortSignal,
  log: LogSink,
): Promise<VmRecord> {
  try {
    await machines.create(vm, signal);
  } catch (error) {
    try {
      await machines.remove(vm);
      store.deleteVm(vm.id);
    } catch (cleanup) {
      log(`removing the machine of failed vm "${vm.name}" failed: ${String(cleanup)}`, 'warn');
    }
    throw error;
  }
  return store.setStatus(vm.id, 'running');
}
