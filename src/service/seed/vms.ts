// The VMs of one seed account: a missing VM is created like `new` creates one (record, disk,
// sandbox, setup script) with the seed's limits; an existing one gets the fields the seed
// gives, limits applied as `resize` applies them; the shares named are added.
import { emojiFor } from '../rules/emoji.js';
import { makeMachineOrDiscard } from '../operations/make-machine.js';
import { resizeMachine } from '../rules/resize-machine.js';
import { sameEmail } from '../rules/validate.js';
import { asSeedConflict, seedConflict, seedEntry, type SeedChanges } from './conflict.js';
import type { SeedAccount, SeedVm } from './parse.js';
import type { LogSink } from '../config.js';
import type { VmMachines } from '../vm/index.js';
import type { Account, Store, VmRecord } from '../store/index.js';

/** What creating a VM needs: the store, the VM machinery, and where a failed cleanup is told. */
interface VmTarget {
  store: Store;
  machines: VmMachines;
  log: LogSink;
}

/** Makes each VM of `entry` exist, owned by `account`, with the fields the seed gives. */
export async function applySeedVms(
  target: VmTarget,
  entry: SeedAccount,
  account: Account,
  changes: SeedChanges,
  signal: AbortSignal,
): Promise<void> {
  for (const wanted of entry.vms) {
    const existing = target.store.getVmByName(wanted.name);
    let vm: VmRecord;
    if (existing === undefined) {
      vm = await create(target, wanted, account, signal);
      changes.push(`created vm "${wanted.name}" of ${account.email}`);
    } else if (existing.accountId !== account.id) {
      throw seedConflict(wanted.path, `vm "${wanted.name}" belongs to another account`);
    } else {
      const updated = seedEntry(wanted.path, () => update(target.store, wanted, existing));
      if (await applyLimits(target, wanted, existing)) updated.push('limits');
      if (updated.length > 0) {
        changes.push(`updated vm "${wanted.name}" of ${account.email} (${updated.join(', ')})`);
      }
      vm = existing;
    }
    for (const email of wanted.shares ?? []) {
      if (sameEmail(email, account.email)) {
        throw seedConflict(wanted.path, `vm "${vm.name}" is ${email}'s own: share it with others`);
      }
      if (target.store.listShares(vm.id).some((s) => sameEmail(s.email, email))) continue;
      seedEntry(wanted.path, () => target.store.addShare(vm.id, email));
      changes.push(`shared vm "${vm.name}" with ${email}`);
    }
  }
}

/** Gives an existing VM the limits the seed names, as `resize` does; whether any changed. */
async function applyLimits(target: VmTarget, wanted: SeedVm, vm: VmRecord): Promise<boolean> {
  if (wanted.limits === undefined) return false;
  const limits = { ...vm.limits, ...wanted.limits };
  if (JSON.stringify(limits) === JSON.stringify(vm.limits)) return false;
  await resizeMachine(target.machines, vm, limits).catch((err: unknown) => {
    throw asSeedConflict(wanted.path, err);
  });
  return true;
}

async function create(
  { store, machines, log }: VmTarget,
  wanted: SeedVm,
  account: Account,
  signal: AbortSignal,
): Promise<VmRecord> {
  const record = seedEntry(wanted.path, () =>
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
  // Before the machine is made, so that its disk and cgroup are born with these limits.
  const vm =
    wanted.limits === undefined
      ? record
      : store.setLimits(record.id, { ...record.limits, ...wanted.limits });
  try {
    // No half-made VM: on failure nothing is left, and the next start tries again.
    return await makeMachineOrDiscard({ store, machines }, vm, signal, log);
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
