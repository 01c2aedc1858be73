// A use case shared by commands and the seed (service/operations/): a VM is born the same way
// from `new` and from `--seed`.
import { commandFailed } from '../../errors.js';
import type { LogSink, ServiceConfig } from '../config.js';
import type { VmMachines } from '../vm/index.js';
import type { Store, VmRecord } from '../store/index.js';

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
    await discard(store, machines, vm, log);
    throw error;
  }
  return store.setStatus(vm.id, 'running');
}

/** How long `new` waits for a setup script before answering `creating` (SPEC §4). */
const SETUP_WAIT_MS = 25_000;

/**
 * `new`'s way (SPEC §4): makes the machine of a freshly stored VM record, starts its setup
 * script in the background, and returns the record once the script ended or after 25 s (or
 * 5/6 of a shorter command deadline, so the answer always comes before it): `running`, or
 * `creating` while the script goes on. A script that failed by then is a 422 naming its last
 * output line; the VM is kept, `failed`. When the machine cannot be made, it is discarded like
 * {@link makeMachineOrDiscard} does.
 */
export async function makeMachineInBackground(
  { store, machines, config }: { store: Store; machines: VmMachines; config: ServiceConfig },
  vm: VmRecord,
  signal: AbortSignal,
  log: LogSink,
  credentials: { user: string; password: string } | null = null,
): Promise<VmRecord> {
  // Counted from now, not from the end of the disk's making: the answer comes in time.
  const waitUntil = Date.now() + Math.min(SETUP_WAIT_MS, (config.commandDeadlineMs * 5) / 6);
  let made: VmRecord;
  try {
    made = await machines.createInBackground(vm, signal, waitUntil, credentials);
  } catch (error) {
    await discard(store, machines, vm, log);
    throw error;
  }
  if (made.status !== 'failed') return made;
  throw commandFailed(
    `setup script of vm "${made.name}" failed: ${made.setup.lastLine ?? 'no output'}`,
    {
      hint: `the VM is kept as failed; its output is in ${SETUP_LOG_HINT} inside it, and "rm ${made.name}" deletes it`,
    },
  );
}

const SETUP_LOG_HINT = '/var/log/exectl-setup.log';

async function discard(store: Store, machines: VmMachines, vm: VmRecord, log: LogSink) {
  try {
    await machines.remove(vm);
    store.deleteVm(vm.id);
  } catch (cleanup) {
    log(`removing the machine of failed vm "${vm.name}" failed: ${String(cleanup)}`, 'warn');
  }
}
