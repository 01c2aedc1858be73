// Where a VM token comes from on a proxied request (SPEC §6), and which header carried it.
import type { IncomingHttpHeaders } from 'node:http';

/** What a request offers the VM proxy as its credential. */
interface ProxyCredential {
  /** The exectl token offered, or null when the request carries none. */
  token: string | null;
  /**
   * True when `Authorization` holds an exectl token (used or not): it must never reach the VM.
   * Any other `Authorization` (say the VM app's own Basic login) is the VM's and passes through.
   */
  dropAuthorization: boolean;
}

/** svc0 or svc1: what makes an `Authorization` value ours rather than the VM app's. */
const EXECTL_TOKEN = /^svc[01]\./;

/**
 * Reads the credential in SPEC §6 order: `X-Exectl-Authorization: Bearer <token>` (preferred,
 * and always removed before forwarding like every `X-Exectl-*` header), else
 * `Authorization: Bearer <token>`, else `Authorization: Basic` with the token as the password
 * (what git sends). A present but unreadable `X-Exectl-Authorization` offers no token.
 */
export function proxyCredential(headers: IncomingHttpHeaders): ProxyCredential {
  const authorization = headers.authorization;
  const inAuthorization = authorization === undefined ? null : exectlToken(authorization);
  const own = headers['x-exectl-authorization'];
  const token =
    own === undefined ? inAuthorization : bearer(Array.isArray(own) ? own.join(', ') : own);
  return { token, dropAuthorization: inAuthorization !== null };
}

/** The exectl token of an `Authorization` value, as Bearer or as the Basic password. */
function exectlToken(authorization: string): string | null {
  const token = bearer(authorization) ?? basicPassword(authorization);
  return token !== null && EXECTL_TOKEN.test(token) ? token : null;
}

/** The token of `Bearer <token>` (scheme case-insensitive), as SPEC §1.5 step 1 reads it. */
function bearer(value: string): string | null {
  const match = /^bearer +(\S+) *$/i.exec(value);
  return match === null ? null : match[1]!;
}

/** The password of `Basic base64(user:password)`; the user name is ignored. */
function basicPassword(value: string): string | null {
  const match = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(value);
  if (match === null) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? null : decoded.slice(colon + 1);
}
