// Which VM an SSH connection may use, by the same rule as `ssh <vm>` on /exec: the VM its user
// name `vm+<name>` names, or the VM whose own address it connected to.
import { ExectlError, notFound } from '../../../errors.js';
import { findSshableVm } from '../../commands/shared/vm-access.js';
import { takeOrRefuse } from '../../rules/rate-limit.js';
import type { VmRecord } from '../../store/index.js';
import { sshPrincipal } from '../principal.js';
import type { SessionContext } from '../session-context.js';

/** The VM a connection is for, looked up again at each session and forwarding. */
export interface VmTarget {
  /** How log lines name the target before it is found: `vm+web`, `vm@127.77.0.1`. */
  readonly path: string;
  /** What the log's `vm=` says before it is found: the name asked for, or the address. */
  readonly label: string;
  /**
   * The VM for the connection's key (see {@link openVm}).
   *
   * @throws ExectlError 422 not found alike for no VM and one the key may not use; 401, 429.
   */
  open(ctx: SessionContext): VmRecord;
}

/** The VM `name` (user name `vm+<name>`). */
export function vmByName(name: string): VmTarget {
  return {
    path: `vm+${name.slice(0, 63)}`,
    label: name.slice(0, 63),
    open: (ctx) => openVm(ctx, name),
  };
}

/**
 * The VM of id `vmId`, reached at its own `address`. Its refusal names the address, never the
 * VM: another account learns no name from an address it may not use.
 */
export function vmAtAddress(vmId: number, address: string): VmTarget {
  return {
    path: `vm@${address}`,
    label: address,
    open(ctx) {
      const nobody = () => notFound(`no vm at ${address}`, 'ls');
      // By name, as every command finds a VM, then checked to be this id still: a rename in
      // between must not hand over another VM that took the name.
      const name = ctx.env.deps.store.getVm(vmId)?.name ?? '';
      let vm: VmRecord;
      try {
        vm = openVm(ctx, name);
      } catch (err) {
        if (err instanceof ExectlError && err.status === 422) throw nobody();
        throw err;
      }
      if (vm.id !== vmId) throw nobody();
      return vm;
    },
  };
}

/**
 * The VM `name` for the connection's key, counted like a request: the key still registered
 * (401), its rate-limit bucket (429), then the rule of every ssh door (SPEC §3: own VMs, VMs
 * shared with the account, those whose owner let the team in, a tag-scoped key's tag only).
 *
 * @throws ExectlError 422 `vm "x" not found` alike for a VM that does not exist and one the
 *   key may not use, 401 or 429 as above.
 */
export function openVm(ctx: SessionContext, name: string): VmRecord {
  const { deps } = ctx.env;
  const principal = sshPrincipal(deps.store, ctx.fingerprint);
  deps.store.recordKeyUse(ctx.fingerprint);
  takeOrRefuse(ctx.env.rateLimiter, ctx.fingerprint);
  return findSshableVm({ deps, principal }, name);
}
