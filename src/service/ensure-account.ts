// "This account exists and holds these keys", as the first start, `serve accounts add` and
// the seed all need it: create what is missing, leave what matches, never remove anything.
import { commandFailed } from '../errors.js';
import type { PublicKey } from '../token/keys.js';
import { defaultKeyName } from './default-key-name.js';
import type { Account, NewSshKey, SshKeyRecord, Store } from './store/index.js';

/** A key the account must hold; with `name`, under that name. */
export interface WantedKey {
  key: PublicKey;
  /** Absent: a key registered now gets the `ssh-key add` default name; a held key keeps its. */
  name?: string | undefined;
}

/** What {@link ensureAccount} found and changed. */
export interface EnsuredAccount {
  account: Account;
  created: boolean;
  /** Keys registered now. */
  added: SshKeyRecord[];
  /** Keys the account held under another name, renamed now. */
  renamed: SshKeyRecord[];
}

/**
 * Makes the account `email` exist and hold every key of `keys`. A missing account is created
 * together with its keys in one transaction; keys missing from an existing account are added
 * and keys held under another name than the one asked for are renamed.
 *
 * @throws 422 `ssh key SHA256:... is registered to another account`, or the store's refusal
 *   (e.g. `ssh key "laptop" already exists` when another key holds the name).
 */
export function ensureAccount(
  store: Store,
  email: string,
  keys: readonly WantedKey[],
): EnsuredAccount {
  const existing = store.findAccountByEmail(email);
  const held = existing === undefined ? [] : store.listKeys(existing.id);
  // Names asked for are reserved first, so that no default name takes one of them.
  const taken = new Set([...held.map((k) => k.name), ...keys.flatMap((k) => k.name ?? [])]);
  const toAdd: Omit<NewSshKey, 'accountId'>[] = [];
  const toRename: { fingerprint: string; name: string }[] = [];
  for (const { key, name } of keys) {
    const registered = store.findKeyByFingerprint(key.fingerprint);
    if (registered !== undefined && registered.accountId !== existing?.id) {
      throw commandFailed(`ssh key ${key.fingerprint} is registered to another account`);
    }
    if (registered === undefined) {
      if (toAdd.some((k) => k.fingerprint === key.fingerprint)) continue;
      const chosen = name ?? defaultKeyName(taken, key.comment);
      taken.add(chosen);
      const { fingerprint, type: keyType } = key;
      toAdd.push({ fingerprint, name: chosen, publicKey: key.toOpenSsh(), keyType });
    } else if (name !== undefined && name !== registered.name) {
      toRename.push({ fingerprint: key.fingerprint, name });
    }
  }

  if (existing === undefined) {
    const account = store.createAccount(email, toAdd);
    return { account, created: true, added: store.listKeys(account.id), renamed: [] };
  }
  const renamed = toRename.map((r) => store.renameKey(r.fingerprint, r.name));
  const added = toAdd.map((key) => store.addKey({ ...key, accountId: existing.id }));
  return { account: existing, created: false, added, renamed };
}
