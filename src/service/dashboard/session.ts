// The dashboard session behind a request: its cookie, and the caller it stands for.
import type { IncomingMessage } from 'node:http';
import { ExectlError } from '../../errors.js';
import type { Principal } from '../dispatch/types.js';
import type { Store } from '../store/index.js';
import type { SignIns } from './sign-ins.js';

/** The cookie's name; its value is the session id. */
export const SESSION_COOKIE = 'exectl_session';

/**
 * The `Set-Cookie` value of a new session (SPEC §11): never readable by scripts, never sent by
 * another site's request, only over TLS when the listener has it, and only to the dashboard.
 */
export function sessionCookie(sessionId: string, maxAgeSeconds: number, tls: boolean): string {
  const secure = tls ? '; Secure' : '';
  return `${SESSION_COOKIE}=${sessionId}; Path=/_/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

/**
 * The session id in `req`'s cookies, or undefined. Two or more session cookies are none: a
 * second can only have been set by another site of the domain (a VM's page under `--domain`
 * setting one for the parent domain), to put the page in an account of its choosing.
 */
export function sessionIdOf(req: IncomingMessage): string | undefined {
  const ids = sessionCookies(req);
  return ids.length === 1 ? ids[0] : undefined;
}

function sessionCookies(req: IncomingMessage): string[] {
  const ids: string[] = [];
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) ids.push(part.slice(eq + 1).trim());
  }
  return ids.filter((value) => /^[A-Za-z0-9_-]{1,100}$/.test(value));
}

/**
 * The caller of a request with a live session, looked up again each time as SSH does: a
 * session whose key was removed (or whose account is gone) ends here, for good. 401 without
 * one.
 */
export function sessionPrincipal(
  req: IncomingMessage,
  signIns: SignIns,
  store: Pick<Store, 'findKeyByFingerprint' | 'getAccount'>,
): Principal {
  const ids = sessionCookies(req);
  if (ids.length > 1) {
    throw new ExectlError(
      'unauthorized',
      'not signed in: this browser sends two dashboard sessions',
      {
        hint: "another site of this domain set one: clear this site's cookies, then open a new sign-in link",
      },
    );
  }
  const sessionId = ids[0];
  const grant = sessionId === undefined ? undefined : signIns.session(sessionId);
  const key = grant === undefined ? undefined : store.findKeyByFingerprint(grant.keyFingerprint);
  const account = key === undefined ? undefined : store.getAccount(key.accountId);
  if (grant === undefined || account === undefined || account.id !== grant.accountId) {
    if (sessionId !== undefined) signIns.end(sessionId);
    throw new ExectlError('unauthorized', 'not signed in', {
      hint: 'run `exectl run browser` (or `browser` over SSH) and open the link it gives',
    });
  }
  return {
    accountId: account.id,
    email: account.email,
    userId: account.userId,
    keyFingerprint: grant.keyFingerprint,
    cmds: grant.cmds,
    tag: key!.tag,
    exp: grant.exp,
    via: 'token',
  };
}
