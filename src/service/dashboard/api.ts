// The dashboard's JSON API: thin by design (SPEC §11). `exec` IS the dispatcher: a command
// line, answered as /exec answers it (same statuses, errors and shapes); `log` reads the
// caller's own requests back; `inspect` is `exectl inspect` of a pasted token; `session` how
// long the session's token lives on (what the token form may offer); `signout` ends the
// session. No business logic of its own.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ExectlError } from '../../errors.js';
import { DEFAULTS } from '../config.js';
import { writeJson } from '../http/error-funnel.js';
import { sendStream } from '../http/exec-stream.js';
import type { InFlightCommands } from '../http/in-flight.js';
import { readBody } from '../http/read-body.js';
import type { RequestLogEntry } from '../request-log.js';
import { takeOrRefuse } from '../rules/rate-limit.js';
import { admitLine, type AdmitEnvironment } from './admit-line.js';
import { inspectForAccount } from './workbench.js';
import { PAGE_HEADERS, type ApiHandler } from './pages.js';
import type { RequestHistory } from './request-history.js';
import { sessionIdOf, sessionPrincipal } from './session.js';
import type { SignIns } from './sign-ins.js';

interface ApiOptions extends AdmitEnvironment {
  signIns: SignIns;
  history: RequestHistory;
  inFlight: InFlightCommands;
}

/** Routes `/_/api/<name>` to its handler; every one needs a live session. */
export function createApi(options: ApiOptions): ApiHandler {
  const { deps, signIns, history } = options;
  return async (req, res, entry) => {
    const name = (req.url ?? '').split('?')[0]!.slice('/_/api/'.length);
    const principal = sessionPrincipal(req, signIns, deps.store);
    const headers = { 'X-Request-Id': entry.requestId, ...PAGE_HEADERS };
    if (name === 'exec') return exec(req, res, entry, principal, headers);
    if (name === 'log') {
      // Polled every few seconds: routine, and not itself one of the requests it lists.
      entry.routine = { host: req.headers.host ?? '-' };
      const since = Number(new URL(req.url ?? '', 'http://x').searchParams.get('since') ?? 0);
      const keys =
        principal.tag === null
          ? deps.store.listKeys(principal.accountId).map((k) => k.fingerprint)
          : [principal.keyFingerprint];
      writeJson(res, 200, { requests: history.rowsOf(keys, since) }, headers);
      return 200;
    }
    if (name === 'inspect') {
      // A signature check costs CPU: it draws on the key's bucket like a command.
      entry.fingerprint = principal.keyFingerprint;
      takeOrRefuse(options.rateLimiter, principal.keyFingerprint);
      const token = (await readBody(req, res, DEFAULTS.bodyLimit)).toString('utf8').trim();
      writeJson(res, 200, inspectForAccount(deps, principal.accountId, token), headers);
      return 200;
    }
    if (name === 'session') {
      // What the page's forms may offer (SPEC §11): a token made here lives no longer than the
      // session's own, so the page needs how long that is; seconds from the server's clock,
      // which decides.
      entry.fingerprint = principal.keyFingerprint;
      const left =
        principal.exp === null ? null : Math.max(0, principal.exp - Math.floor(deps.now() / 1000));
      writeJson(res, 200, { token_expires_in: left }, headers);
      return 200;
    }
    if (name === 'signout') {
      entry.fingerprint = principal.keyFingerprint;
      signIns.end(sessionIdOf(req)!);
      writeJson(res, 200, { signed_out: true }, headers);
      return 200;
    }
    throw new ExectlError('not_found', 'not found', { hint: 'the dashboard API is /_/api/exec' });
  };

  async function exec(
    req: IncomingMessage,
    res: ServerResponse,
    entry: RequestLogEntry,
    principal: ReturnType<typeof sessionPrincipal>,
    headers: Record<string, string>,
  ): Promise<number> {
    const stopWhen = options.inFlight.track(res);
    const line = (await readBody(req, res, DEFAULTS.bodyLimit)).toString('utf8');
    const result = await admitLine(options, principal, line, entry, stopWhen);
    if (result.output.kind === 'stream') return sendStream(res, result.output, { headers });
    // The terminal is the page's WebSocket (terminal.ts), as a pty is SSH's.
    if (result.output.kind === 'interactive') throw result.output.refusal;
    writeJson(res, 200, result.output.data, headers);
    return 200;
  }
}
