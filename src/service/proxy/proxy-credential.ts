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
 * each other dialect the server speaks (`X-ExeDev-Authorization`, SPEC §12), else
 * `Authorization: Bearer <token>`, else `Authorization: Basic` with the token as the password
 * (what git sends). A present but unreadable own header offers no token. An `Authorization`
 * is ours when its token starts with a token prefix of `dialects` (`svc0.`, `svc1.`, `exe0.`…).
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

/** The token of an `Authorization` value (as Bearer or as the Basic password), if it is ours. */
function ourToken(authorization: string, dialects: readonly Dialect[]): string | null {
  const token = bearer(authorization) ?? basicPassword(authorization);
  if (token === null) return null;
  const ours = dialects.some(
    (d) => token.startsWith(d.svc0Prefix) || token.startsWith(d.svc1Prefix),
  );
  return ours ? token : null;
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
