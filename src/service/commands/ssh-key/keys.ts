// Finding and reading the caller's SSH keys for the `ssh-key ...` commands.
import { commandFailed, ExectlError, notFound } from '../../../errors.js';
import { parsePublicKey, type PublicKey } from '../../../token/keys.js';
import type { SshKeyRecord } from '../../store/index.js';
import type { ServiceContext } from '../shared/command.js';
import { defaultKeyName, freeName } from '../../accounts.js';
import { parseRegistrableKey } from '../../rules/registrable-key.js';
import { quote } from '../../rules/validate.js';
import { isKeyInTagScope } from '../../rules/tag-scope.js';

/**
 * A public key typed by a user: one `.pub` line. Pasted unquoted, it arrives as several words,
 * which are joined back with single spaces (the base64 part never contains a space).
 *
 * @throws 422 with the parser's sentence, e.g. `not an SSH public key`, or a refused RSA key's.
 */
export function parseUserPublicKey(words: readonly string[]): PublicKey {
  try {
    return parseRegistrableKey(words.join(' '));
  } catch (error) {
    // The token library reports a bad key as a client-side key_error; here it is bad input.
    if (error instanceof ExectlError && error.code === 'key_error') {
      throw commandFailed(error.message, error.hint === undefined ? {} : { hint: error.hint });
    }
    throw error;
  }
}

/**
 * The caller's keys, oldest first, as far as the caller may see them: all of the account's, or
 * for a tag-scoped key only that key itself (SPEC §3).
 */
export function visibleKeys(ctx: ServiceContext): SshKeyRecord[] {
  const { principal } = ctx;
  return ctx.deps.store
    .listKeys(principal.accountId)
    .filter((key) => isKeyInTagScope(principal, key));
}

/**
 * One of the caller's keys, named by its fingerprint (`SHA256:...`), its whole public key line,
 * or its name — tried in that order, among the keys the caller sees only, so another account's
 * key (or, for a tag-scoped key, any other key) is `not found` just like one that does not exist.
 *
 * @throws 422 `ssh key "x" not found`.
 */
export function findOwnKey(ctx: ServiceContext, words: readonly string[]): SshKeyRecord {
  const ref = words.join(' ');
  const keys = visibleKeys(ctx);
  const fingerprint = ref.startsWith('SHA256:') ? ref : fingerprintOfLine(ref);
  const found = keys.find((k) => k.fingerprint === fingerprint) ?? keys.find((k) => k.name === ref);
  if (found === undefined) throw notFound(`ssh key ${quote(ref)} not found`, 'ssh-key list');
  return found;
}

function fingerprintOfLine(text: string): string | undefined {
  try {
    return parsePublicKey(text).fingerprint;
  } catch (error) {
    if (error instanceof ExectlError) return undefined;
    throw error;
  }
}

/**
 * `nameFor(n)` for the smallest n >= 1 that no key of the caller is named yet: the default
 * names `key-N` and `api-key-<date>[-N]`.
 */
export function freeKeyName(ctx: ServiceContext, nameFor: (n: number) => string): string {
  return freeName(takenKeyNames(ctx), nameFor);
}

/** The name `ssh-key add` gives a key without `--name`: its comment if usable, else `key-N`. */
export function defaultNameForKey(ctx: ServiceContext, comment: string): string {
  return defaultKeyName(takenKeyNames(ctx), comment);
}

function takenKeyNames(ctx: ServiceContext): Set<string> {
  return new Set(ctx.deps.store.listKeys(ctx.principal.accountId).map((k) => k.name));
}
