// Where a VM token comes from on a proxied request (SPEC §6), and which header carried it.
import type { IncomingHttpHeaders } from 'node:http';
import type { Dialect } from '../../dialects.js';

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

/**
 * Reads the credential in SPEC §6 order: `X-Exectl-Authorization: Bearer <token>` (preferred,
 * and always removed before forwarding like every `X-Exectl-*` header), then the same header of
 * each other dialect the server speaks (`X-ExeDev-Authorization`, SPEC §12), else the token in
 * `Authorization`, in any of the forms clients put it there: `Bearer <token>`, the bare token
 * with no scheme, or `Basic` with the token as the password (what git sends) or as the user
 * (`https://$TOKEN@host`, git's other habit). A present but unreadable own header offers no
 * token (it needs `Bearer`; it never reaches the VM either way). An `Authorization` is ours when a token in it starts with a token prefix of `dialects`
 * (`svc0.`, `svc1.`, `exe0.`…): then it is consumed and never reaches the VM.
 */
export function proxyCredential(
  headers: IncomingHttpHeaders,
  dialects: readonly Dialect[],
): ProxyCredential {
  const authorization = headers.authorization;
  const inAuthorization = authorization === undefined ? null : ourToken(authorization, dialects);
  for (const { proxyAuthorization } of dialects) {
    const own = headers[proxyAuthorization];
    if (own === undefined) continue;
    const token = bearer(Array.isArray(own) ? own.join(', ') : own);
    return { token, dropAuthorization: inAuthorization !== null };
  }
  return { token: inAuthorization, dropAuthorization: inAuthorization !== null };
}

/** The token of an `Authorization` value (Bearer, bare, or either half of Basic), if ours. */
function ourToken(authorization: string, dialects: readonly Dialect[]): string | null {
  const bearerToken = bearer(authorization);
  if (bearerToken !== null) return isOurs(bearerToken, dialects) ? bearerToken : null;
  const bare = bareToken(authorization, dialects);
  if (bare !== null) return bare;
  const basic = basicCredentials(authorization);
  if (basic === null) return null;
  if (isOurs(basic.password, dialects)) return basic.password;
  return isOurs(basic.user, dialects) ? basic.user : null;
}

function isOurs(token: string, dialects: readonly Dialect[]): boolean {
  return dialects.some((d) => token.startsWith(d.svc0Prefix) || token.startsWith(d.svc1Prefix));
}

/** A value that is one of our tokens with no scheme before it (spaces around it ignored). */
function bareToken(value: string, dialects: readonly Dialect[]): string | null {
  const trimmed = value.trim();
  if (/\s/.test(trimmed)) return null;
  return isOurs(trimmed, dialects) ? trimmed : null;
}

/** The token of `Bearer <token>` (scheme case-insensitive), as SPEC §1.5 step 1 reads it. */
function bearer(value: string): string | null {
  const match = /^bearer +(\S+) *$/i.exec(value);
  return match === null ? null : match[1]!;
}

/** The user and password of `Basic base64(user:password)`. */
function basicCredentials(value: string): { user: string; password: string } | null {
  const match = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(value);
  if (match === null) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return { user: decoded, password: '' };
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
