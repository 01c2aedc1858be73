// What to do after a 401 (SPEC §8), from what the client itself knows: the server says only
// `invalid token` (it must not tell an attacker which check failed), but the client holds the
// token it sent and can read, unverified, what it was made for.
import { vmOfNamespace } from '../../inspection/vm-token.js';
import { decodeSvc0Unverified } from '../../token/decode.js';

/** The 401's facts the hint is drawn from. */
export interface UnauthorizedFacts {
  /** The server's message (`invalid token: expired`). */
  message: string;
  /** The token that was sent as configured (--token, EXECTL_TOKEN, the profile); none if minted. */
  configuredToken?: string | undefined;
  /** The namespace of this server's /exec (`v0@localhost`). */
  namespace?: string | undefined;
}

/** The default: which key signs, and whether the server knows it. */
const AUTH_STATUS = '`exectl auth status` shows which key signs and whether the server knows it';

/**
 * The hint of a 401: an expired token → mint a new one; a configured token made for another
 * namespace (a VM token, another server's) → what it was made for; else `auth status`.
 */
export function unauthorizedHint(facts: UnauthorizedFacts): string {
  const { message, configuredToken, namespace } = facts;
  if (/\bexpired\b/.test(message)) {
    return configuredToken === undefined
      ? 'mint a new one: check the clock of this machine and the server'
      : 'mint a new one (`exectl mint`), or leave out --token and EXECTL_TOKEN: exectl then mints one per command';
  }
  const madeFor = namespace === undefined ? undefined : namespaceOf(configuredToken);
  if (madeFor !== undefined && madeFor !== namespace) {
    const vm = vmOfNamespace(madeFor, namespace!);
    return vm === undefined
      ? `the token was made for namespace ${madeFor}, not for this server's /exec (${namespace}): mint one for it (\`exectl mint\`)`
      : `the token was made for vm "${vm}" (namespace ${madeFor}), not for /exec (${namespace}): send it to the VM's URL, or mint one without --vm`;
  }
  return AUTH_STATUS;
}

/** The namespace a svc0 token's signature names (unverified: for a hint only). */
function namespaceOf(token: string | undefined): string | undefined {
  if (token === undefined || !token.startsWith('svc0.')) return undefined;
  try {
    const namespace = decodeSvc0Unverified(token).signature.namespace;
    // It goes to a terminal: only what a namespace may hold.
    return /^[\x21-\x7e]{1,255}$/.test(namespace) ? namespace : undefined;
  } catch {
    return undefined;
  }
}
