// The operations of `exectl serve accounts add|list|remove` (SPEC §7) on a store: the same code
// whether the CLI opened the data folder itself (no server runs) or a running server got the
// request on its admin socket. They return plain data (also the socket's answers); the CLI
// words it.
import { commandFailed, ExectlError } from '../../errors.js';
import type { PublicKey } from '../../token/keys.js';
import { ensureAccount } from '../accounts.js';
import { checkEmail, quote } from '../rules/validate.js';
import type { Store } from '../store/index.js';

/** A key as `accounts` shows it. */
interface KeySummary {
  name: string;
  fingerprint: string;
}

/** One account of `accounts list`. */
export interface AccountSummary {
  email: string;
  user_id: string;
  created_at: string;
  ssh_keys: KeySummary[];
}

/** What `accounts add` did. */
export interface AddedAccount {
  email: string;
  user_id: string;
  created: boolean;
  /** Keys registered now. */
  added: KeySummary[];
}

/** The account `accounts remove` deleted. */
export interface RemovedAccountSummary {
  email: string;
  user_id: string;
}

/**
 * `email` when it is an email address, else a usage error (exit 2): the CLI checks it before it
 * touches anything, and the admin socket again, since its requests are input like any other.
 */
export function checkAccountEmail(email: string): string {
  try {
    return checkEmail(email);
  } catch (err) {
    throw new ExectlError('usage', (err as Error).message, { hint: 'e.g. ada@example.com' });
  }
}

/** Makes the account `email` exist (created if missing) and hold `keys`. */
export function addAccount(store: Store, email: string, keys: readonly PublicKey[]): AddedAccount {
  checkAccountEmail(email);
  const { account, created, added } = ensureAccount(
    store,
    email,
    keys.map((key) => ({ key })),
  );
  return {
    email: account.email,
    user_id: account.userId,
    created,
    added: added.map((k) => ({ name: k.name, fingerprint: k.fingerprint })),
  };
}

/** Every account with its keys, oldest first. */
export function listAccountSummaries(store: Store): AccountSummary[] {
  return store.listAccounts().map((account) => ({
    email: account.email,
    user_id: account.userId,
    created_at: account.createdAt,
    ssh_keys: store.listKeys(account.id).map((k) => ({ name: k.name, fingerprint: k.fingerprint })),
  }));
}

/**
 * Removes the account `email` with its keys, integrations and team. Refused while it owns VMs:
 * their disks and processes belong to a running server, which removes them with `rm`.
 */
export function removeAccountByEmail(store: Store, email: string): RemovedAccountSummary {
  checkAccountEmail(email);
  const account = store.findAccountByEmail(email);
  if (account === undefined) {
    throw commandFailed(`no account for ${quote(email)}`, {
      hint: 'see `exectl serve accounts list`',
    });
  }
  const vms = store.listVmsOwnedBy(account.id).map((v) => v.name);
  if (vms.length > 0) {
    throw commandFailed(`${account.email} still owns ${vms.length} VM(s): ${vms.join(', ')}`, {
      hint: `remove them first, with the server running: exectl run rm ${vms.join(' ')}`,
    });
  }
  const removed = store.removeAccount(account.id).account;
  return { email: removed.email, user_id: removed.userId };
}
