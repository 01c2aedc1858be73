// What a server start does to the VMs it finds (SPEC §4): a creation cut off by a crash is
// marked `failed` (no VM stays `creating`), and every VM that was running boots again.
import type { LogSink } from '../../config.js';
import type { Store, VmRecord } from '../../store/index.js';

/** What a VM left `creating` by a server that stopped shows in `stat`. */
const INTERRUPTED = 'the server stopped before the VM was fully created';

/**
 * Marks every VM still `creating` as `failed` (a server start: nothing is creating it any
 * more). Its setup shows the reason; its disk stays, so its owner may look inside or `rm` it.
 */
export function failInterruptedCreations(store: Store, log: LogSink): void {
  for (const vm of store.listVmsWithStatus('creating')) {
    const status = vm.setupScript === null ? 'none' : 'failed';
    store.setSetup(vm.id, { status, lastLine: INTERRUPTED }, 'failed');
    log(`vm "${vm.name}": ${INTERRUPTED}; it is marked failed`, 'warn');
  }
}

/** How many VMs boot at once at start: enough to finish soon, few enough for a small host. */
const BOOTS_AT_ONCE = 2;

/**
 * Boots every VM stored as `running`, a few at a time; a VM that cannot boot is marked
 * `stopped` and named in one log line. Resolves once every boot was tried, or soon after
 * `stop` aborts (the server stops: the VMs not booted yet stay `running` for the next start).
 */
export async function bootRunningVms(
  store: Store,
  boot: (vm: VmRecord) => Promise<void>,
  log: LogSink,
  stop: AbortSignal,
): Promise<void> {
  const queue = store.listVmsWithStatus('running');
  const worker = async () => {
    for (let vm = queue.shift(); vm !== undefined && !stop.aborted; vm = queue.shift()) {
      try {
        await boot(vm);
      } catch (err) {
        if (stop.aborted) return;
        store.setStatusIf(vm.id, ['running'], 'stopped');
        const why = err instanceof Error ? err.message : String(err);
        log(`vm "${vm.name}" did not boot at start, it is stopped: ${why.split('\n')[0]}`, 'warn');
      }
    }
  };
  await Promise.all(Array.from({ length: BOOTS_AT_ONCE }, worker));
}
