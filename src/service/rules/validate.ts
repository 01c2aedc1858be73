// Checks of what users type into commands. Each failure is one 422 sentence naming the value.
import { commandFailed } from '../../errors.js';

/** SPEC §3: a VM name is a DNS label. */
const VM_NAME = /^[a-z][a-z0-9-]{0,61}[a-z0-9]$/;
/** SPEC §3. */
const TAG = /^[a-z][a-z0-9_-]{0,62}$/;
/** A shell variable name, so the value reaches the VM's `/bin/sh` intact. */
const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Deliberately loose: one `@` with something on both sides and no spaces or controls. */
const EMAIL = /^[^\s@\u0000-\u001f\u007f]+@[^\s@\u0000-\u001f\u007f]+$/;
/** Printable, no leading or trailing space: key names are typed back in `ssh-key remove`. */
const KEY_NAME = /^[^\s\u0000-\u001f\u007f](?:[^\u0000-\u001f\u007f]*[^\s\u0000-\u001f\u007f])?$/;
const MAX_KEY_NAME_LENGTH = 64;
/** SPEC §9. */
export const MAX_COMMENT_BYTES = 200;
/** Unprivileged ports only: the VM's server runs as an unprivileged user. */
const MIN_PORT = 1024;
const MAX_PORT = 65535;
/** Longest piece of user input echoed back in a message. */
const MAX_QUOTED = 64;

/**
 * A user's value as shown inside a message: JSON-quoted (so controls are escaped) and cut to
 * 64 characters, so a huge or hostile argument cannot flood or break a one-line error.
 */
export function quote(text: string): string {
  return JSON.stringify(text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}...` : text);
}

/** @throws 422 `invalid vm name "X": ...` */
export function checkVmName(name: string): string {
  if (!VM_NAME.test(name)) {
    throw commandFailed(
      `invalid vm name ${quote(name)}: use 2 to 63 lowercase letters, digits or dashes, starting with a letter and not ending with a dash`,
    );
  }
  return name;
}

/** @throws 422 `invalid tag "X": ...` */
export function checkTag(tag: string): string {
  if (!TAG.test(tag)) {
    throw commandFailed(
      `invalid tag ${quote(tag)}: use 1 to 63 lowercase letters, digits, "_" or "-", starting with a letter`,
    );
  }
  return tag;
}

/** @throws 422 `comment exceeds 200 bytes` */
export function checkComment(comment: string): string {
  if (Buffer.byteLength(comment, 'utf8') > MAX_COMMENT_BYTES) {
    throw commandFailed(`comment exceeds ${MAX_COMMENT_BYTES} bytes`);
  }
  return comment;
}

/**
 * `--env K=V` values as one object. The value is everything after the first `=` and may be
 * empty; a key given twice is refused rather than silently overwritten.
 *
 * @throws 422 `invalid --env "X": expected KEY=VALUE with KEY a shell variable name` or
 *   `--env FOO given more than once`.
 */
export function parseEnv(entries: readonly string[]): Record<string, string> {
  // A Map, not an object literal: `env['__proto__'] = v` would set the prototype instead.
  const env = new Map<string, string>();
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const key = eq < 0 ? '' : entry.slice(0, eq);
    if (!ENV_KEY.test(key)) {
      throw commandFailed(
        `invalid --env ${quote(entry)}: expected KEY=VALUE with KEY a shell variable name`,
      );
    }
    if (env.has(key)) throw commandFailed(`--env ${key} given more than once`);
    env.set(key, entry.slice(eq + 1));
  }
  return Object.fromEntries(env);
}

/** @throws 422 `invalid email "x"` */
export function checkEmail(email: string): string {
  if (!EMAIL.test(email)) throw commandFailed(`invalid email ${quote(email)}`);
  return email;
}

/** True when two emails are the same address as the store compares them (ASCII case folded). */
export function sameEmail(a: string, b: string): boolean {
  const fold = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return fold(a) === fold(b);
}

/**
 * True for a usable SSH key name (also an API key's label). Names are typed back in
 * `ssh-key remove|rename`, so they are printable, trimmed, at most 64 characters, and never
 * look like a fingerprint.
 */
export function isValidKeyName(name: string): boolean {
  return name.length <= MAX_KEY_NAME_LENGTH && KEY_NAME.test(name) && !name.startsWith('SHA256:');
}

/** {@link isValidKeyName}, or @throws 422 `invalid key name "x": ...` */
export function checkKeyName(name: string): string {
  if (!isValidKeyName(name)) {
    throw commandFailed(
      `invalid key name ${quote(name)}: use 1 to ${MAX_KEY_NAME_LENGTH} printable characters, not starting with "SHA256:"`,
    );
  }
  return name;
}

/** @throws 422 `invalid port "x": use a whole number from 1024 to 65535` */
export function parsePort(text: string): number {
  const port = /^[1-9][0-9]{3,4}$/.test(text) ? Number(text) : NaN;
  if (!(port >= MIN_PORT && port <= MAX_PORT)) {
    throw commandFailed(
      `invalid port ${quote(text)}: use a whole number from ${MIN_PORT} to ${MAX_PORT}`,
    );
  }
  return port;
}
