// Share links at the VM proxy (`share add-link`, SPEC §3): opening `<url>?share=<token>` gives
// that browser a cookie for the VM's address only, which lets it into the VM's site until the
// link is removed. Both are the proxy's: the `share` parameter is never forwarded (the request
// is answered with a redirect to the same URL without it) and the cookie is taken out of the
// `Cookie` header before the request goes on.
import type { Store, VmRecord } from '../store/index.js';
import { connectionHeader } from '../http/error-funnel.js';

/** The cookie a redeemed link leaves in the browser. */
export const SHARE_COOKIE = 'exectl_share';

/** The `share` parameter of a request target, or null when it has none. */
export function shareParameter(url: string): { token: string; rest: string } | null {
  const question = url.indexOf('?');
  if (question < 0) return null;
  const pairs = url.slice(question + 1).split('&');
  const index = pairs.findIndex((pair) => pair === 'share' || pair.startsWith('share='));
  if (index < 0) return null;
  const token = pairs[index]!.slice('share='.length);
  pairs.splice(index, 1);
  // Only a path of this host: an absolute-form target, or one starting `//` or `/\` (which a
  // browser reads as another host), would make the redirect an open one.
  const path = url.startsWith('/') ? url.slice(0, question).replace(/^[/\\]+/, '/') : '/';
  return { token, rest: pairs.length === 0 ? path : `${path}?${pairs.join('&')}` };
}

/**
 * The answer to a request carrying `?share=`, whatever its VM (a missing VM is answered as
 * one whose link is wrong): a 302 to the same target without the parameter, with the cookie
 * when the token is a link of `vm` (counted as one use). Host-only (no Domain: the browser
 * sends it to this address only), HttpOnly, SameSite=Lax (a top-level navigation from
 * elsewhere still carries it), Secure under TLS.
 */
export function redeemShareLink(
  store: Store,
  vm: VmRecord | undefined,
  share: { token: string; rest: string },
  secure: boolean,
  keepAlive: boolean,
): string {
  const link = vm === undefined ? undefined : store.findShareLink(vm.id, share.token);
  let cookie = '';
  if (link !== undefined) {
    store.recordShareLinkUse(link.token);
    cookie =
      `Set-Cookie: ${SHARE_COOKIE}=${link.token}; Path=/; HttpOnly; SameSite=Lax` +
      `${secure ? '; Secure' : ''}\r\n`;
  }
  return (
    `HTTP/1.1 302 Found\r\nLocation: ${share.rest}\r\n${cookie}` +
    // The link's token must not leak onwards through the Referer of the next page.
    'Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nContent-Length: 0\r\n' +
    `Date: ${new Date().toUTCString()}\r\n${connectionHeader(keepAlive)}\r\n`
  );
}

/**
 * The tokens of every share cookie a `Cookie` header carries (a browser may send several
 * of the same name, another site of the domain may have set one): any of them that is a link
 * of the VM lets the request in.
 */
export function shareCookies(cookie: string | undefined): string[] {
  if (cookie === undefined) return [];
  const tokens: string[] = [];
  for (const pair of cookie.split(';')) {
    const trimmed = pair.trim();
    if (trimmed.startsWith(`${SHARE_COOKIE}=`)) tokens.push(trimmed.slice(SHARE_COOKIE.length + 1));
  }
  return tokens;
}

/** True when one of the request's share cookies is a link of `vm`. */
export function admittedByShareCookie(
  store: Store,
  vm: VmRecord | undefined,
  cookie: string | undefined,
): boolean {
  if (vm === undefined) return false;
  return shareCookies(cookie).some((token) => store.findShareLink(vm.id, token) !== undefined);
}

/** A `Cookie` header's value without the share cookies; null when nothing else is left. */
export function withoutShareCookies(value: string): string | null {
  const kept = value
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '' && !pair.startsWith(`${SHARE_COOKIE}=`));
  return kept.length === 0 ? null : kept.join('; ');
}
