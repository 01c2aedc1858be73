// An SSH session (contract.ts `VmMachines.session`) on the runtime: hung up with the VM, and
// its outcome in the contract's terms.
import type { VmSession, VmSessionOptions } from '../contract.js';
import type { OpenSessions } from './open-sessions.js';
import type { VmRuntime, VmSpec } from '../runtime.js';

/** Starts the session on `runtime`, registered in `sessions` so that `rm`/`restart` end it. */
export function runtimeSession(
  runtime: VmRuntime,
  vm: VmSpec,
  sessions: OpenSessions,
  vmId: number,
  options: VmSessionOptions,
): VmSession {
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => (ended = resolve));
  const signal = sessions.open(vmId, options.signal, closed);
  const running = runtime.session(vm, { ...options, signal });
  const exited = running.exited
    .then(({ exitCode, signal: ender, aborted }) =>
      // The name without `SIG`, as SSH's `exit-signal` carries it.
      ender === undefined ? { exitCode, aborted } : { exitCode, signal: ender.slice(3), aborted },
    )
    .finally(ended);
  exited.catch(() => {});
  return { resize: (cols, rows) => running.resize(cols, rows), exited };
}
