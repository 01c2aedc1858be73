// The headers the VM proxy passes on (SPEC §6), as flat raw lists [name, value, name, value...]
// so that repeated headers, their order and their spelling survive the trip.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { ALL_DIALECTS, type Dialect } from '../../dialects.js';
import type { TokenCaller } from '../http/token-auth.js';
import { HOP_BY_HOP_HEADERS } from './hop-by-hop.js';
import { withoutShareCookies } from './share-link.js';

/**
 * Only the proxy sets these: a client must not pose as another user or another origin. Names
 * are compared with `_` read as `-`, since many servers (CGI and WSGI: Python's, Rack, PHP)
 * fold both to `_` and would read `X_Exectl_Email` as the proxy's own header. The reserved
 * prefixes are those of EVERY dialect (`x-exectl-`, and `x-exedev-` of SPEC §12), whether or not
 * the server speaks it: a VM app written for the real service trusts `X-ExeDev-Email`, so no
 * client may send one, even to a server without `--compat`. The same holds for every dialect's
 * exit header (`X-Exec-Exit`, `X-Exe-Exit`): an app or a client library behind the VM that reads
 * it must never see a client's forgery.
 */
const RESERVED_PREFIXES = ALL_DIALECTS.map((d) => d.reservedHeaderPrefix);
const EXIT_HEADERS = new Set(ALL_DIALECTS.map((d) => d.exitHeader.toLowerCase()));
const FORWARDED = /^x-forwarded-(?:for|host|proto)$/;

/**
 * Proxy-only names: the proxy's own and every spelling of "where the client is" that an app may
 * trust (`X-Forwarded-*`, RFC 7239's `Forwarded`, nginx's `X-Real-IP`), SPEC §6.
 */
function isProxyOnly(lowerName: string): boolean {
  // Every proxy-only name but `forwarded` starts with `x-` (or `x_`): most headers are out at
  // the first letter.
  const first = lowerName.charCodeAt(0);
  if (first === 0x66) return lowerName === 'forwarded';
  if (first !== 0x78) return false;
  const name = lowerName.replaceAll('_', '-');
  return (
    FORWARDED.test(name) ||
    name === 'x-real-ip' ||
    EXIT_HEADERS.has(name) ||
    RESERVED_PREFIXES.some((prefix) => name.startsWith(prefix))
  );
}

interface HeadersToVmOptions {
  /** The caller whose token passed (names them to the VM), or null for an anonymous visit. */
  visitor: TokenCaller | null;
  /** `Authorization` carried the exectl token: it must not reach the VM. */
  dropAuthorization: boolean;
  /**
   * The request goes through a byte-for-byte tunnel (an upgrade): its framing and connection
   * headers stay, for the VM's server to accept or refuse the upgrade itself.
   */
  tunnel: boolean;
  /** The dialects the server speaks: the visitor is named in each one's headers (SPEC §12). */
  dialects: readonly Dialect[];
  /** The service's proxy loop mark, sent on in `X-Exectl-Hop` (integrations/loop.ts). */
  loopMark: string;
}

/**
 * The request headers for the VM's server: the client's own, without hop-by-hop headers (unless
 * tunnelled), `Proxy-Authorization`, `Expect` (the proxy answers it), the exectl token or any
 * client-sent `X-Exectl-*` / `X-ExeDev-*` / `X-Forwarded-*` / `Forwarded` / `X-Real-IP` / exit
 * header (`_` or `-`), the share cookie; then, for a visitor
 * with a token, `X-Exectl-Email`, `X-Exectl-User-Id` and `X-Exectl-Token-Ctx` (and the same under
 * each other dialect's names, `X-ExeDev-Email`, `X-ExeDev-UserID`, `X-ExeDev-Token-Ctx`);
 * `X-Forwarded-For/-Host/-Proto`; and the proxy's loop mark in `X-Exectl-Hop`: a VM that sends
 * the request back is refused 508.
 */
export function headersToVm(
  req: Pick<IncomingMessage, 'rawHeaders' | 'headers' | 'socket'>,
  options: HeadersToVmOptions,
): string[] {
  const connectionScoped = options.tunnel ? new Set<string>() : connectionHeaders(req.rawHeaders);
  const out: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (isProxyOnly(lower) || lower === 'proxy-authorization') continue;
    if (options.dropAuthorization && lower === 'authorization') continue;
    if (!options.tunnel && (HOP_BY_HOP_HEADERS.has(lower) || lower === 'expect')) continue;
    if (connectionScoped.has(lower)) continue;
    if (lower === 'cookie') {
      // The share cookie is the proxy's (share-link.ts): the VM's server never sees it.
      const rest = withoutShareCookies(req.rawHeaders[i + 1]!);
      if (rest !== null) out.push(name, rest);
      continue;
    }
    out.push(name, req.rawHeaders[i + 1]!);
  }
  if (options.visitor !== null) {
    const { principal, permissions } = options.visitor;
    const email = utf8Bytes(principal.email);
    const ctx = permissions.ctxRaw === undefined ? undefined : ctxHeaderValue(permissions.ctxRaw);
    for (const { visitorHeaders: names } of options.dialects) {
      out.push(names.email, email, names.userId, principal.userId);
      if (ctx !== undefined) out.push(names.tokenCtx, ctx);
    }
  }
  const remote = req.socket.remoteAddress;
  if (remote !== undefined) out.push('X-Forwarded-For', remote);
  if (req.headers.host !== undefined) out.push('X-Forwarded-Host', req.headers.host);
  const encrypted = (req.socket as Partial<TLSSocket>).encrypted === true;
  out.push('X-Forwarded-Proto', encrypted ? 'https' : 'http');
  out.push('X-Exectl-Hop', options.loopMark);
  return out;
}

/**
 * A chunked request's trailers for the VM's server: the same proxy-only, hop-by-hop and
 * `Proxy-Authorization` names stay behind as in the head (some servers merge trailers into the
 * headers they show the application).
 */
export function trailersToVm(rawTrailers: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < rawTrailers.length; i += 2) {
    const lower = rawTrailers[i]!.toLowerCase();
    if (isProxyOnly(lower) || HOP_BY_HOP_HEADERS.has(lower)) continue;
    if (lower === 'authorization') continue;
    out.push(rawTrailers[i]!, rawTrailers[i + 1]!);
  }
  return out;
}

/** The VM's response headers for the client, without the hop-by-hop ones. */
export function headersFromVm(rawHeaders: readonly string[]): string[] {
  const connectionScoped = connectionHeaders(rawHeaders);
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const lower = rawHeaders[i]!.toLowerCase();
    if (HOP_BY_HOP_HEADERS.has(lower) || connectionScoped.has(lower)) continue;
    out.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  }
  return out;
}

/** Headers a `Connection` header names as belonging to this connection only. */
function connectionHeaders(rawHeaders: readonly string[]): Set<string> {
  const named = new Set<string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    // The length first: no lower-cased copy of every other name (this runs twice a request).
    if (name.length !== 10 || name.toLowerCase() !== 'connection') continue;
    for (const token of rawHeaders[i + 1]!.split(',')) named.add(token.trim().toLowerCase());
  }
  return named;
}

/**
 * Node writes header strings as latin1, one byte per character; handing it the UTF-8 bytes as
 * latin1 characters puts exactly those bytes on the wire (a VM's server reads them back as UTF-8).
 */
function utf8Bytes(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/**
 * The token's `ctx` exactly as signed. The payload rules already exclude CR, LF and NUL; the
 * one byte left that HTTP forbids in a header is DEL (0x7f), which JSON allows unescaped only
 * inside a string, so writing it as the escape `\u007f` keeps the same JSON value.
 */
function ctxHeaderValue(ctxRaw: string): string {
  return utf8Bytes(ctxRaw.replaceAll('\u007f', '\\u007f'));
}
