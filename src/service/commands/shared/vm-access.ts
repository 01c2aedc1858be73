// Who may see and who may change a VM (SPEC §3: a caller sees and touches only its own VMs and
// VMs shared with it). Every command naming a VM goes through here.
import { commandFailed, type ExectlError } from '../../../errors.js';
import type { VmRecord } from '../../store/index.js';
import type { ServiceContext } from './command.js';
import { quote, sameEmail } from '../../rules/validate.js';

/**
 * The answer for a VM that does not exist AND for one that exists but is not visible to the
 * caller: the two must be indistinguishable, or names of other people's VMs would leak.
 */
export function vmNotFound(name: string): ExectlError {
  return commandFailed(`vm ${quote(name)} not found`);
}

/** True when the caller owns the VM or it is shared with the caller's email. */
export function isVisibleTo(ctx: ServiceContext, vm: VmRecord): boolean {
  const { accountId, email } = ctx.principal;
  if (vm.accountId === accountId) return true;
  return ctx.deps.store.listShares(vm.id).some((share) => sameEmail(share.email, email));
}

/**
 * The VM called `name` when the caller may see it.
 * @throws 422 `vm "x" not found` (also for a VM that exists but is not visible).
 */
export function findVisibleVm(ctx: ServiceContext, name: string): VmRecord {
  const vm = ctx.deps.store.getVmByName(name);
  if (vm === undefined || !isVisibleTo(ctx, vm)) throw vmNotFound(name);
  return vm;
}

/**
 * The VM called `name` when the caller owns it. A user a VM is shared with may see it (and
 * run commands in it) but not change it; `what` completes the refusal, e.g. `delete it`.
 *
 * @throws 422 `vm "x" not found`, or `only the owner of vm "x" can <what>`.
 */
export function findOwnVm(ctx: ServiceContext, name: string, what: string): VmRecord {
  const vm = findVisibleVm(ctx, name);
  if (vm.accountId !== ctx.principal.accountId) {
    throw commandFailed(`only the owner of vm ${quote(name)} can ${what}`);
  }
  return vm;
}
