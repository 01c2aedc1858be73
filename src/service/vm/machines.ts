// The VM runtime as the commands see it (deps.ts `VmMachines`): stored VM records in, the
// runtime's disks and sandboxes out.
import { join } from 'node:path';
import type { ServiceDeps, VmExecOptions, VmMachines } from '../deps.js';
import { reflectionUrlOf } from '../reflection/urls.js';
import type { VmRecord } from '../store/index.js';
import { createRuntime } from './create-runtime.js';
import { detectRuntime } from './detect.js';
import type { DetectedRuntime, ExecResult, VmSpec } from './types.js';

/** The VM machinery of a running service. */
export interface RunningVmMachines extends VmMachines {
  /** The runtime in use, and why when `auto` fell back to the unisolated one. */
  readonly runtime: DetectedRuntime;
  exec(vm: VmRecord, command: string, options: VmExecOptions): Promise<ExecResult>;
  /** Kills every VM process (server exit). */
  shutdown(): Promise<void>;
}

/**
 * Chooses the runtime for `config.runtime` (ExectlError `usage` when bwrap is demanded but
 * cannot run) and serves stored VMs with it. A VM's disk is `<data>/vms/<id>`; its commands and shells
 * get `EXECTL_REFLECTION_URL` = `<reflection listener>/vm/<reflection secret>`, read at each
 * command because the listener's address is known only once it listens.
 */
export async function startVmMachines({
  config,
  store,
  endpoints,
}: Pick<ServiceDeps, 'config' | 'store' | 'endpoints'>): Promise<RunningVmMachines> {
  const detected = await detectRuntime(config.runtime);
  const runtime = createRuntime(detected.kind);
  const spec = (vm: VmRecord): VmSpec => ({
    name: vm.name,
    diskDir: join(config.dataDir, 'vms', String(vm.id)),
    env: vm.env,
  });
  const reflection = (vm: VmRecord) => ({
    EXECTL_REFLECTION_URL: reflectionUrlOf(endpoints.reflection, vm.reflectionSecret),
  });

  return {
    runtime: detected,
    async create(vm, signal) {
      await runtime.create(spec(vm), { setupScript: vm.setupScript, env: reflection(vm), signal });
      // The runtime owns a VM's status (store/vm-records.ts); a created VM is running.
      store.setStatus(vm.id, 'running');
    },
    async restart(vm) {
      await runtime.restart(spec(vm));
      store.setStatus(vm.id, 'running');
    },
    remove: (vm) => runtime.remove(spec(vm)),
    exec: (vm, command, options) =>
      runtime.exec(spec(vm), command, { ...options, env: reflection(vm) }),
    shell: (vm, options) => runtime.shell(spec(vm), { ...options, env: reflection(vm) }),
    shutdown: () => runtime.shutdown(),
  };
}
