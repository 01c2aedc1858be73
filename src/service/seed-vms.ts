// The VMs of one seed account: a missing VM is created like `new` creates one (record, disk,
// sandbox, setup script); an existing one gets the fields the seed gives.
import { emojiFor } from './commands/shared/emoji.js';
import { makeMachineOrDiscard } from './commands/shared/make-machine.js';
import { asSeedConflict, seedConflict, seedEntry, type SeedChanges } from './seed-conflict.js';
import type { SeedAccount, SeedVm } from './seed-parse.js';
import type { SeedTarget } from './seed.js';
import type { Account, Store, VmRecord } from './store/index.js';

/** Makes each VM of `entry` exist, owned by `account`, with the fields the seed gives. */
export async function applySeedVms(
  target: SeedTarget,
  entry: SeedAccount,
  account: Account,
  changes: SeedChanges,
  signal: AbortSignal,
): Promise<void> {
  for (const wanted of entry.vms) {
    const existing = target.store.getVmByName(wanted.name);
    if (existing === undefined) {
      await create(target, wanted, account, signal);
      changes.push(`created vm "${wanted.name}" of ${account.email}`);
    } else if (existing.accountId !== account.id) {
      throw seedConflict(wanted.path, `vm "${wanted.name}" belongs to another account`);
    } else {
      const updated = seedEntry(wanted.path, () => update(target.store, wanted, existing));
      if (updated.length > 0) {
        changes.push(`updated vm "${wanted.name}" of ${account.email} (${updated.join(', ')})`);
      }
    }
  }
}

async function create(
  { store, machines, log }: SeedTarget,
  wanted: SeedVm,
  account: Account,
  signal: AbortSignal,
): Promise<void> {
  const vm = seedEntry(wanted.path, () =>
    store.createVm({
      accountId: account.id,
      name: wanted.name,
      emoji: emojiFor(wanted.name),
      status: 'creating',
      tags: wanted.tags ?? [],
      comment: wanted.comment ?? '',
      defaultPort: wanted.defaultPort ?? 8000,
      visibility: wanted.visibility ?? 'private',
      env: wanted.env ?? {},
      setupScript: wanted.setupScript ?? null,
    }),
  );
  try {
    // No half-made VM: on failure nothing is left, and the next start tries again.
    await makeMachineOrDiscard({ store, machines }, vm, signal, log);
  } catch (err) {
    throw asSeedConflict(wanted.path, err);
  }
}

/** Sets each field the seed gives that differs; returns the names of the fields changed. */
function update(store: Store, wanted: SeedVm, vm: VmRecord): string[] {
  const changed: string[] = [];
  if (wanted.tags !== undefined && JSON.stringify(wanted.tags) !== JSON.stringify(vm.tags)) {
    store.setTags(vm.id, wanted.tags);
    changed.push('tags');
  }
  if (wanted.comment !== undefined && wanted.comment !== vm.comment) {
    store.setComment(vm.id, wanted.comment);
    changed.push('comment');
  }
  if (wanted.defaultPort !== undefined && wanted.defaultPort !== vm.defaultPort) {
    store.setDefaultPort(vm.id, wanted.defaultPort);
    changed.push('default_port');
  }
  if (wanted.visibility !== undefined && wanted.visibility !== vm.visibility) {
    store.setVisibility(vm.id, wanted.visibility);
    changed.push('visibility');
  }
  if (wanted.env !== undefined && !sameEnv(wanted.env, vm.env)) {
    store.setEnv(vm.id, wanted.env);
    changed.push('env');
  }
  return changed;
}

function sameEnv(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => b[k] === a[k]);
}
