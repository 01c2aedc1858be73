// The headers the VM proxy passes on (SPEC §6), as flat raw lists [name, value, name, value...]
// so that repeated headers, their order and their spelling survive the trip.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { TokenCaller } from './token-auth.js';
import { HOP_BY_HOP_HEADERS } from './hop-by-hop.js';

/**
 * Only the proxy sets these: a client must not pose as another user or another origin. Names
 * are compared with `_` read as `-`, since many servers (CGI and WSGI: Python's, Rack, PHP)
 * fold both to `_` and would read `X_Exectl_Email` as the proxy's own header.
 */
const PROXY_ONLY = /^(?:x-exectl-.*|x-forwarded-(?:for|host|proto))$/;

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
  /** The service's proxy loop mark, sent on in `X-Exectl-Hop` (integrations/loop.ts). */
  loopMark: string;
}

/**
 * The request headers for the VM's server: the client's own, without hop-by-hop headers (unless
 * tunnelled), `Proxy-Authorization`, `Expect` (the proxy answers it), the exectl token or any
 * client-sent `X-Exectl-*` / `X-Forwarded-*` (`_` or `-`); then `X-Exectl-Email`, `X-Exectl-User-Id` and
 * `X-Exectl-Token-Ctx` for a visitor with a token, `X-Forwarded-For/-Host/-Proto`, and the
 * proxy's loop mark in `X-Exectl-Hop`: a VM that sends the request back is refused 508.
 */
export function headersToVm(req: IncomingMessage, options: HeadersToVmOptions): string[] {
  const connectionScoped = options.tunnel ? new Set<string>() : connectionHeaders(req.rawHeaders);
  const out: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (PROXY_ONLY.test(lower.replaceAll('_', '-')) || lower === 'proxy-authorization') continue;
    if (options.dropAuthorization && lower === 'authorization') continue;
    if (!options.tunnel && (HOP_BY_HOP_HEADERS.has(lower) || lower === 'expect')) continue;
    if (connectionScoped.has(lower)) continue;
    out.push(name, req.rawHeaders[i + 1]!);
  }
  if (options.visitor !== null) {
    const { principal, permissions } = options.visitor;
    out.push('X-Exectl-Email', utf8Bytes(principal.email), 'X-Exectl-User-Id', principal.userId);
    if (permissions.ctxRaw !== undefined) {
      out.push('X-Exectl-Token-Ctx', ctxHeaderValue(permissions.ctxRaw));
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
    if (rawHeaders[i]!.toLowerCase() !== 'connection') continue;
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
