// The JSON of `stat` and `resize` (SPEC §3): a VM's state, limits and live usage.
import type { VmRecord, VmStatus } from '../../store/index.js';
import type { VmState } from '../../vm/index.js';
import type { VmStateData } from '../../../text-views/vms.js';
import { rfc3339 } from '../../../time.js';

/**
 * The VM's real status: the stored one, unless its machine says otherwise (frozen; or stored
 * `running` while its processes are gone, which the runtime reports a moment later).
 */
export function liveStatus(vm: VmRecord, state: VmState): VmStatus {
  if (state.paused) return 'paused';
  if (vm.status === 'running' && !state.running) return 'stopped';
  return vm.status;
}

/** `stat`'s answer for `vm` whose machine is in `state`. */
export function vmStateData(vm: VmRecord, state: VmState): VmStateData {
  const { limits, usage } = state;
  return {
    vm_name: vm.name,
    status: liveStatus(vm, state),
    image: vm.image?.reference ?? null,
    image_digest: vm.image?.digest ?? null,
    created_at: vm.createdAt,
    // bootedAt is in milliseconds; every time leaves the server in whole seconds (SPEC §3).
    booted_at: state.bootedAt === null ? null : rfc3339(state.bootedAt / 1000),
    limits: {
      cpus: limits.cpus,
      memory_bytes: limits.memoryBytes,
      pids: limits.pids,
      disk_bytes: limits.diskBytes,
    },
    usage: {
      memory_bytes: usage.memoryBytes,
      pids: usage.pids,
      disk_bytes: usage.diskBytes,
      cpu_seconds: usage.cpuSeconds === null ? null : Math.round(usage.cpuSeconds * 1000) / 1000,
    },
    setup: { status: vm.setup.status, last_line: vm.setup.lastLine },
    ...(state.diskNote === undefined ? {} : { disk_note: state.diskNote }),
  };
}
