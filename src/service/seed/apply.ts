// Applying a `--seed` file at start (exectl-serve(1), SEED FILE): make the accounts, keys,
// integrations, VMs and team members it names exist and match it. Applying the same seed
// twice changes nothing; nothing absent from the seed is ever deleted.
import { ensureAccount } from '../accounts.js';
import type { LogSink } from '../config.js';
import type { ServiceEndpoints } from '../deps.js';
import type { VmMachines } from '../vm/index.js';
import { seedConflict, seedEntry, type SeedChanges } from './conflict.js';
import { applySeedIntegrations } from './integrations.js';
import type { Seed, SeedAccount } from './parse.js';
import { applySeedVms } from './vms.js';
import type { Account, Store } from '../store/index.js';

/** What a seed is applied to: the running service's store, VM machinery and listeners. */
export interface SeedTarget {
  store: Store;
  machines: VmMachines;
  /** The listeners no integration may forward to. */
  endpoints: ServiceEndpoints;
  /** `serve --allow-private-targets`: integrations may name private addresses (SPEC §6). */
  allowPrivateTargets: boolean;
  /** Where problems that do not stop the seed are reported (a failed cleanup). */
  log: LogSink;
}

/**
 * Applies `seed` in four passes — accounts with their keys, then integrations, VMs and team
 * members (which may name any account of the seed). Each store write is its own transaction,
 * so a seed that fails midway leaves what it did so far; fixing the seed and starting again
 * completes it.
 *
 * @param signal aborts a VM's creation (its setup script) when the server is stopping.
 * @throws ExectlError `usage` naming the seed entry that disagrees with the data folder, e.g.
 *   `accounts[1].keys[0]: ssh key SHA256:... is registered to another account`.
 */
export async function applySeed(
  seed: Seed,
  target: SeedTarget,
  signal: AbortSignal,
): Promise<SeedChanges> {
  const changes: SeedChanges = [];
  const accounts = seed.accounts.map((entry) => ({
    entry,
    account: seedEntry(entry.path, () => applyAccount(target.store, entry, changes)),
  }));
  for (const { entry, account } of accounts) {
    await applySeedIntegrations(target, entry, account, changes);
  }
  for (const { entry, account } of accounts) {
    await applySeedVms(target, entry, account, changes, signal);
  }
  for (const { entry, account } of accounts)
    applyTeamMembers(target.store, entry, account, changes);
  return changes;
}

/** The account of `entry`, created if missing, holding the seed's keys. */
function applyAccount(store: Store, entry: SeedAccount, changes: SeedChanges): Account {
  const { account, created, added, renamed } = ensureAccount(store, entry.email, entry.keys);
  if (created) changes.push(`created account ${entry.email} with ${added.length} ssh key(s)`);
  else for (const key of added) changes.push(`added ssh key ${key.fingerprint} to ${entry.email}`);
  for (const key of renamed)
    changes.push(`renamed ssh key ${key.fingerprint} of ${entry.email} to "${key.name}"`);
  return account;
}

/** Brings each listed account into `account`'s team (the one it owns). */
function applyTeamMembers(
  store: Store,
  entry: SeedAccount,
  account: Account,
  changes: SeedChanges,
): void {
  if (entry.teamMembers.length === 0) return;
  const current = store.getTeamOfAccount(account.id)!;
  if (current.role !== 'owner') {
    throw seedConflict(`${entry.path}.team_members`, `${entry.email} is a member of another team`);
  }
  for (const { email, path } of entry.teamMembers) {
    const member = store.findAccountByEmail(email);
    if (member === undefined) throw seedConflict(path, `no account for ${email}`);
    if (store.getTeamOfAccount(member.id)?.team.id === current.team.id) continue;
    seedEntry(path, () => store.addTeamMember(current.team.id, member.id));
    changes.push(`added ${email} to team "${current.team.name}"`);
  }
}
