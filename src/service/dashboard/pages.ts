// The dashboard's HTTP requests under `/_/` (SPEC §11). In order: the Host must be the
// server's own (DNS rebinding); the sign-in link and the static files answer without a
// session; everything else is the JSON API, which needs a session, and a matching `Origin`
// since every call of it is a POST. One log line per request, as for every request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ExectlError } from '../../errors.js';
import type { LogSink } from '../config.js';
import { sendError } from '../http/error-funnel.js';
import { newLogEntry, runLogged, type RequestLogEntry } from '../request-log.js';
import { assetAt } from './assets.js';
import { checkHost, checkOrigin } from './guard.js';
import { SIGN_IN_PATH } from '../commands/browser.js';
import { sessionCookie } from './session.js';
import type { SignIns } from './sign-ins.js';

/** `path` as a log line may show it: a sign-in link's secret never (SPEC §11). */
export function loggedPath(path: string): string {
  return path.startsWith(SIGN_IN_PATH) ? '/_/signin' : path;
}

/** Headers on every dashboard answer: no framing, no referrer (a link secret is in a URL). */
export const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/** An API call, once the Host, the session and the Origin passed. */
export type ApiHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  entry: RequestLogEntry,
) => Promise<number>;

interface PagesOptions {
  log: LogSink;
  tls: boolean;
  hosts: () => ReadonlySet<string>;
  signIns: SignIns;
  api: ApiHandler;
}

/** The handler of every request whose path starts with `/_/`. */
export function createPages(options: PagesOptions) {
  const { log, tls, signIns } = options;
  return (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0]!;
    const signIn = path.startsWith(SIGN_IN_PATH);
    // A link's secret is never written down: the line names the sign-in, not the link.
    const entry = newLogEntry('dashboard', `${req.method} ${loggedPath(path)}`);
    const headers = { 'X-Request-Id': entry.requestId, ...PAGE_HEADERS };
    const work = async (): Promise<number> => {
      checkHost(req, options.hosts());
      if (signIn) return redeem(req, res, path.slice(SIGN_IN_PATH.length), headers, entry);
      const asset = path.startsWith('/_/api/') ? undefined : assetAt(path.slice('/_/'.length));
      if (asset !== undefined) {
        entry.routine = { host: req.headers.host ?? '-' };
        if (req.method !== 'GET' && req.method !== 'HEAD') throw notAllowed('GET, HEAD');
        res.writeHead(200, { ...headers, 'Content-Type': asset.type });
        res.end(req.method === 'HEAD' ? undefined : asset.body);
        return 200;
      }
      if (!path.startsWith('/_/api/')) {
        throw new ExectlError('not_found', 'not found', { hint: 'the dashboard is at /_/' });
      }
      if (req.method !== 'POST') throw notAllowed('POST');
      checkOrigin(req, tls);
      return options.api(req, res, entry);
    };
    return runLogged(log, entry, work, (err) => sendError(res, err, headers));
  };

  function redeem(
    req: IncomingMessage,
    res: ServerResponse,
    secret: string,
    headers: Record<string, string>,
    entry: RequestLogEntry,
  ): number {
    if (req.method !== 'GET') throw notAllowed('GET');
    const session = signIns.redeem(secret);
    if (session === undefined) {
      throw new ExectlError(
        'unauthorized',
        'this sign-in link is not valid: used, expired or unknown',
        {
          hint: 'get a fresh one with `exectl run browser`',
        },
      );
    }
    // The key that asked: the sign-in shows in that account's live log.
    entry.fingerprint = session.grant.keyFingerprint;
    const maxAge = Math.max(1, Math.floor(session.lifetimeMs / 1000));
    res.writeHead(303, {
      ...headers,
      Location: '/_/',
      'Set-Cookie': sessionCookie(session.sessionId, maxAge, tls),
    });
    res.end();
    return 303;
  }
}

function notAllowed(allow: string): ExectlError {
  return new ExectlError('method_not_allowed', 'method not allowed', { headers: { Allow: allow } });
}
