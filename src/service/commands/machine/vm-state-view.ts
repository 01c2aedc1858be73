// The JSON of `stat` and `resize` (SPEC §3): a VM's state, limits and live usage.
import type { VmRecord, VmSetup, VmStatus } from '../../store/index.js';
import type { VmState } from '../../vm/types.js';

export interface VmStateData {
  vm_name: string;
  status: string;
  created_at: string;
  booted_at: string | null;
  limits: {
    cpus: number | null;
    memory_bytes: number | null;
    pids: number | null;
    disk_bytes: number | null;
  };
  usage: {
    memory_bytes: number | null;
    pids: number | null;
    disk_bytes: number | null;
    cpu_seconds: number | null;
  };
  setup: { status: VmSetup['status']; last_line: string | null };
}

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
    created_at: vm.createdAt,
    booted_at: state.bootedAt === null ? null : new Date(state.bootedAt).toISOString(),
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
  };
}

/** The readable form: one `name: value` line each, sizes in MiB. */
export function renderVmState(data: VmStateData): string {
  const mib = (n: number | null) => (n === null ? '-' : `${Math.round(n / 2 ** 20)} MiB`);
  const show = (n: number | null) => (n === null ? '-' : String(n));
  return [
    `vm:      ${data.vm_name} (${data.status})`,
    `created: ${data.created_at}`,
    `booted:  ${data.booted_at ?? '-'}`,
    `setup:   ${data.setup.status}${data.setup.last_line === null ? '' : ` (${data.setup.last_line})`}`,
    `cpus:    ${show(data.limits.cpus)} (used ${show(data.usage.cpu_seconds)} s)`,
    `memory:  ${mib(data.usage.memory_bytes)} of ${mib(data.limits.memory_bytes)}`,
    `pids:    ${show(data.usage.pids)} of ${show(data.limits.pids)}`,
    `disk:    ${mib(data.usage.disk_bytes)} of ${mib(data.limits.disk_bytes)}`,
    '',
  ].join('\n');
}
