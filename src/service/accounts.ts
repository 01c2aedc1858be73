// Accounts as the first start, `serve accounts add`, the seed and `ssh-key add` need them:
// "this account exists and holds these keys" (create what is missing, leave what matches,
// never remove anything), the owner's bootstrap on an empty data folder, and free key names.
// Reading files, env and git is the CLI's job; this is the pure part, on the store.
import { commandFailed, ExectlError } from '../errors.js';
import type { PublicKey } from '../token/keys.js';
import { isValidKeyName, quote } from './rules/validate.js';
import { parseRegistrableKey } from './rules/registrable-key.js';
import type { Account, NewSshKey, SshKeyRecord, Store } from './store/index.js';

/** A key the account must hold; with `name`, under that name. */
interface WantedKey {
  key: PublicKey;
  /** Absent: a key registered now gets the `ssh-key add` default name; a held key keeps its. */
  name?: string | undefined;
  /**
   * The tag the key is scoped to (`generate-api-key --tag`). Absent: a key registered now is
   * not scoped; a held key keeps its tag. A key's tag never changes.
   */
  tag?: string | undefined;
}

/** What {@link ensureAccount} found and changed. */
interface EnsuredAccount {
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
 * @throws 422 `ssh key SHA256:... is registered to another account`, `ssh key SHA256:... has
 *   tag "ci", not "x": a key's tag never changes`, or the store's refusal (e.g.
 *   `ssh key "laptop" already exists` when another key holds the name).
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
  for (const { key, name, tag } of keys) {
    const registered = store.findKeyByFingerprint(key.fingerprint);
    if (registered !== undefined && registered.accountId !== existing?.id) {
      throw commandFailed(`ssh key ${key.fingerprint} is registered to another account`);
    }
    if (registered === undefined) {
      if (toAdd.some((k) => k.fingerprint === key.fingerprint)) continue;
      const chosen = name ?? defaultKeyName(taken, key.comment);
      taken.add(chosen);
      const { fingerprint, type: keyType } = key;
      toAdd.push({
        fingerprint,
        name: chosen,
        publicKey: key.toOpenSsh(),
        keyType,
        tag: tag ?? null,
      });
    } else if (tag !== undefined && tag !== registered.tag) {
      const has = registered.tag === null ? 'has no tag' : `has tag ${quote(registered.tag)}`;
      throw commandFailed(
        `ssh key ${key.fingerprint} ${has}, not ${quote(tag)}: a key's tag never changes`,
      );
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

/**
 * The name a key registered without one gets, as `ssh-key add` names it: its comment when that
 * is a valid name not in `taken`, else the first free `key-N`.
 */
export function defaultKeyName(taken: ReadonlySet<string>, comment: string): string {
  if (isValidKeyName(comment) && !taken.has(comment)) return comment;
  return freeName(taken, (n) => `key-${n}`);
}

/**
 * `nameFor(n)` for the smallest n >= 1 not in `taken`: the default names `key-N` and
 * `api-key-<date>[-N]`.
 */
export function freeName(taken: ReadonlySet<string>, nameFor: (n: number) => string): string {
  let n = 1;
  while (taken.has(nameFor(n))) n += 1;
  return nameFor(n);
}

/** One public key line offered for registration, and where it was read (`file` or `file:line`). */
export interface KeyLine {
  line: string;
  source: string;
}

/** A key line that could not be used, with the one-sentence reason. */
export interface RejectedKeyLine {
  source: string;
  reason: string;
}

/**
 * Parses key lines, in order. A key met twice (the same key in two files) is kept once; a
 * line that is not a supported public key is listed in `rejected` with the parser's reason.
 */
export function parseKeyLines(lines: readonly KeyLine[]): {
  keys: PublicKey[];
  rejected: RejectedKeyLine[];
} {
  const keys: PublicKey[] = [];
  const rejected: RejectedKeyLine[] = [];
  for (const { line, source } of lines) {
    try {
      const key = parseRegistrableKey(line);
      if (!keys.some((k) => k.fingerprint === key.fingerprint)) keys.push(key);
    } catch (err) {
      if (!(err instanceof ExectlError)) throw err;
      rejected.push({ source, reason: err.message });
    }
  }
  return { keys, rejected };
}

/** True while the store holds no account: the owner bootstrap is due (SPEC §7). */
export function hasNoAccounts(store: Pick<Store, 'listAccounts'>): boolean {
  return store.listAccounts().length === 0;
}

/**
 * Creates the account `email` holding `keys` (in one transaction, keys named as `ssh-key add`
 * names them) when the store has no account yet; returns undefined and changes nothing when
 * it has one, so every later start leaves the accounts alone.
 */
export function bootstrapOwner(
  store: Store,
  email: string,
  keys: readonly PublicKey[],
): EnsuredAccount | undefined {
  if (!hasNoAccounts(store)) return undefined;
  return ensureAccount(
    store,
    email,
    keys.map((key) => ({ key })),
  );
}
