// Which keys may sign a token for a namespace, as ssh-keygen's allowed_signers decides:
// shared by `exectl inspect --verify` (keys from a file) and the dashboard's workbench (the
// account's registered keys).
import type { PublicKey } from '../token/keys.js';

export interface TrustedKey {
  key: PublicKey;
  /** The `namespaces="..."` pattern list, when the line restricts them. */
  namespaces: string | undefined;
}

/** The keys of `keys` allowed to sign for `namespace`, by fingerprint. */
export function keyFinderFor(
  keys: readonly TrustedKey[],
  namespace: string,
): (fingerprint: string) => PublicKey | undefined {
  const allowed = new Map<string, PublicKey>();
  for (const { key, namespaces } of keys) {
    if (namespaces === undefined || matchesPatternList(namespace, namespaces)) {
      allowed.set(key.fingerprint, key);
    }
  }
  return (fingerprint) => allowed.get(fingerprint);
}

/** ssh-keygen's match_pattern_list: any `!pattern` match denies, else any pattern match allows. */
export function matchesPatternList(value: string, list: string): boolean {
  let allowed = false;
  for (const entry of list.split(',')) {
    const negated = entry.startsWith('!');
    if (!globMatches(value, negated ? entry.slice(1) : entry)) continue;
    if (negated) return false;
    allowed = true;
  }
  return allowed;
}

function globMatches(value: string, pattern: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 's').test(value);
}
