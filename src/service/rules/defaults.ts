// The defaults an account may keep (`defaults write <domain> <key>`, SPEC §3): only the ones
// a command reads, each with its size bound, so the table never holds what nothing uses.
import { commandFailed } from '../../errors.js';
import { DEFAULTS } from '../config.js';
import { quote } from './validate.js';

/** The domain of the real service's defaults (`dev.exe new.setup-script`). */
export const EXE_DEFAULTS_DOMAIN = 'dev.exe';
/** The setup script `new` runs when it gets no `--setup-script`. */
export const SETUP_SCRIPT_KEY = 'new.setup-script';

/**
 * The largest setup script: what one command line may carry (SPEC §2's body limit), the most a
 * `new --setup-script` can give too.
 */
export const MAX_SETUP_SCRIPT_BYTES = DEFAULTS.bodyLimit;

/** Every default there is, by domain then key, with its largest value in bytes. */
const KNOWN: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  [EXE_DEFAULTS_DOMAIN]: { [SETUP_SCRIPT_KEY]: MAX_SETUP_SCRIPT_BYTES },
};

/** `domain key` of every default there is, for messages. */
const KNOWN_LIST = Object.entries(KNOWN)
  .flatMap(([domain, keys]) => Object.keys(keys).map((key) => `${domain} ${key}`))
  .join(', ');

/**
 * The largest value of the default `domain key`.
 * @throws 422 `unknown default "x" "y": the defaults are dev.exe new.setup-script`.
 */
export function defaultLimit(domain: string, key: string): number {
  // Own properties only: `constructor` or `__proto__` must not name a default.
  const keys = Object.hasOwn(KNOWN, domain) ? KNOWN[domain]! : {};
  const limit = Object.hasOwn(keys, key) ? keys[key] : undefined;
  if (limit === undefined) {
    throw commandFailed(
      `unknown default ${quote(domain)} ${quote(key)}: the defaults are ${KNOWN_LIST}`,
    );
  }
  return limit;
}

/**
 * Refuses an unknown domain (`defaults read <domain>`).
 * @throws 422 `unknown defaults domain "x": the domains are dev.exe`.
 */
export function checkDefaultsDomain(domain: string): string {
  if (!Object.hasOwn(KNOWN, domain)) {
    throw commandFailed(
      `unknown defaults domain ${quote(domain)}: the domains are ${Object.keys(KNOWN).join(', ')}`,
    );
  }
  return domain;
}

/** @throws 422 `the value of dev.exe new.setup-script exceeds 65536 bytes`. */
export function checkDefaultValue(domain: string, key: string, value: string): string {
  const limit = defaultLimit(domain, key);
  if (Buffer.byteLength(value, 'utf8') > limit) {
    throw commandFailed(`the value of ${domain} ${key} exceeds ${limit} bytes`);
  }
  return value;
}
