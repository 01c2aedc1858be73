// First start of `exectl serve` (SPEC §7): on a data folder without accounts, create the owner
// account with the public keys the CLI found. Reading files, env and git is the CLI's job;
// this is the pure part, on the store.
import { ExectlError } from '../errors.js';
import type { PublicKey } from '../token/keys.js';
import { parseRegistrableKey } from './registrable-key.js';
import { ensureAccount, type EnsuredAccount } from './ensure-account.js';
import type { Store } from './store/index.js';

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

/** True while the store holds no account: the owner bootstrap is due. */
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
