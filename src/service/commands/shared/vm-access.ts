// Who may see and who may change a VM (SPEC §3: a caller sees and touches only its own VMs and
// VMs shared with it). Every command naming a VM goes through here. A tag-scoped key
// (`generate-api-key --tag T`) narrows that further to the VMs tagged T: the scope applies on
// top of the visibility above, so it never widens it (a VM of another account tagged T is seen
// only when it is shared with the caller, as without a scope).
import { notFound, notOwner, type ExectlError } from '../../../errors.js';
import type { Principal } from '../../dispatch/types.js';
import type { VmRecord } from '../../store/index.js';
import { isInTagScope, tagScopeRefusal } from '../../rules/tag-scope.js';
import type { ServiceContext } from './command.js';
import { quote, sameEmail } from '../../rules/validate.js';

/** Who asks, and the service: a command's context, or an SSH session into a VM (SPEC §6a). */
type VmCaller = Pick<ServiceContext, 'deps' | 'principal'>;

/**
 * The answer for a VM that does not exist AND for one that exists but is not visible to the
 * caller: the two must be indistinguishable, or names of other people's VMs would leak.
 */
function vmNotFound(name: string): ExectlError {
  return notFound(`vm ${quote(name)} not found`, 'ls');
}

/**
 * True when the caller owns the VM or it is shared with the caller's email, and the VM is in
 * the tag scope of the caller's key.
 */
function isVisibleTo(ctx: VmCaller, vm: VmRecord): boolean {
  const { accountId, email } = ctx.principal;
  if (!isInTagScope(ctx.principal, vm)) return false;
  if (vm.accountId === accountId) return true;
  return ctx.deps.store.listShares(vm.id).some((share) => sameEmail(share.email, email));
}

/**
 * The VM called `name` when the caller may see it.
 * @throws 422 `vm "x" not found` (also for a VM that exists but is not visible).
 */
export function findVisibleVm(ctx: VmCaller, name: string): VmRecord {
  const vm = ctx.deps.store.getVmByName(name);
  if (vm === undefined || !isVisibleTo(ctx, vm)) throw vmNotFound(name);
  return vm;
}

/**
 * The VM called `name` when the caller may ssh into it (every ssh door: `ssh` over /exec and
 * the lobby, `vm+<name>` sessions): a VM it may see, or one whose owner allowed the team in
 * (`share access allow`) when the caller is in the owner's team now. The tag scope holds
 * either way.
 *
 * @throws 422 `vm "x" not found` (also for a VM the caller may not enter).
 */
export function findSshableVm(ctx: VmCaller, name: string): VmRecord {
  const vm = ctx.deps.store.getVmByName(name);
  if (vm !== undefined && (isVisibleTo(ctx, vm) || isTeamAllowed(ctx, vm))) return vm;
  throw vmNotFound(name);
}

/** The VM lets its owner's team in and the caller is in that team (and in the key's scope). */
function isTeamAllowed(ctx: VmCaller, vm: VmRecord): boolean {
  const { store } = ctx.deps;
  if (!isInTagScope(ctx.principal, vm) || !store.hasTeamAccess(vm.id)) return false;
  const ownerTeam = store.getTeamOfAccount(vm.accountId)?.team.id;
  return (
    ownerTeam !== undefined &&
    store.getTeamOfAccount(ctx.principal.accountId)?.team.id === ownerTeam
  );
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
    const owner = ctx.deps.store.getAccount(vm.accountId)?.email;
    throw notOwner(`only the owner of vm ${quote(name)} can ${what}`, owner);
  }
  return vm;
}

/**
 * The tags a VM made by the caller (`new`, `cp`) gets: `tags`, plus the tag of a tag-scoped
 * key, so the new VM is in the scope of the key that made it.
 */
export function withScopeTag(principal: Principal, tags: readonly string[]): string[] {
  return principal.tag === null || tags.includes(principal.tag)
    ? [...tags]
    : [...tags, principal.tag];
}

/**
 * Refuses a tag-scoped key what would reach past its scope in a command it may run (a key for
 * another tag, an attachment past its tag); `what` says what was refused.
 *
 * @throws 403 `this key is limited to vms tagged "ci" and cannot make a key for tag "prod":
 *   use a key without --tag`.
 */
export function refuseIfTagScoped(principal: Principal, what: string): void {
  if (principal.tag !== null) throw tagScopeRefusal(principal.tag, what);
}
