// The record of a VM being made (`new`, `cp`): its name taken at once, status `creating`.
import { commandFailed } from '../../../errors.js';
import { StoreConflictError, type NewVm, type VmRecord } from '../../store/index.js';
import type { ServiceContext } from './command.js';
import { withScopeTag } from './vm-access.js';
import { emojiFor } from '../../rules/emoji.js';
import { randomVmName } from '../../rules/random-name.js';
import { DEFAULTS } from '../../config.js';

/** Random names tried before giving up (1600 combinations: collisions stay rare). */
const RANDOM_NAME_TRIES = 20;

/** A new VM's fields but its name, emoji (which follows from the name) and region. */
export type NewVmFields = Omit<NewVm, 'name' | 'emoji' | 'region'>;

/**
 * Stores the record of a new VM named `name` (checked already), or without one a random free
 * `adjective-noun` (the store's uniqueness check settles races). A tag-scoped caller's VM also
 * gets the key's tag; every VM gets its owner's region as it is now (`set-region`).
 * @throws 422 `vm name "n" is not available: choose another`, or when no random name was free;
 *   422 when the account owns `--max-vms-per-account` VMs already.
 */
export function storeNewVm(
  ctx: ServiceContext,
  name: string | undefined,
  fields: NewVmFields,
): VmRecord {
  refuseBeyondVmLimit(ctx, fields.accountId);
  const tags = withScopeTag(ctx.principal, fields.tags ?? []);
  const region = ctx.deps.store.getAccount(fields.accountId)?.region ?? 'local';
  const create = (n: string) =>
    ctx.deps.store.createVm({ ...fields, tags, region, name: n, emoji: emojiFor(n) });
  if (name !== undefined) return create(name);
  for (let attempt = 0; attempt < RANDOM_NAME_TRIES; attempt += 1) {
    const random = randomVmName();
    if (ctx.deps.store.getVmByName(random) !== undefined) continue;
    try {
      return create(random);
    } catch (error) {
      if (!(error instanceof StoreConflictError && error.kind === 'duplicate')) throw error;
    }
  }
  throw commandFailed('no free random vm name found: choose one with --name');
}

/**
 * One account's VMs are bounded as a whole (SPEC §7): each one is a share of the host (its
 * processes, its connections, its helpers), so one tenant making VMs in a loop must not crowd
 * out every other. Checked in the same synchronous step as the record is stored: two `new`s at
 * once cannot both pass.
 */
function refuseBeyondVmLimit(ctx: ServiceContext, accountId: number): void {
  const limit = ctx.deps.config.maxVmsPerAccount ?? DEFAULTS.maxVmsPerAccount;
  const owned = ctx.deps.store.listVmsOwnedBy(accountId).length;
  if (owned < limit) return;
  throw commandFailed(
    `this account has ${owned} vms, the most this server allows (--max-vms-per-account ${limit}): remove one with rm first`,
  );
}
