// Which handler answers an HTTP request on the main listener (SPEC §2, §6, §11): a request that
// came back through one of our own integrations or VM proxy, or that repeats Host or Authorization, is
// refused; a VM's address belongs to the proxy whatever the path; then /exec, /healthz and the
// dashboard's /_/; anything else is a logged 404.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ExectlError } from '../../errors.js';
import type { LogSink } from '../config.js';
import { loopOf, type LoopMarks } from '../integrations/loop.js';
import { loggedPath } from '../dashboard/index.js';
import { newLogEntry, runLogged } from '../request-log.js';
import { sendError } from './error-funnel.js';
import { repeatedSingleton } from './singleton-headers.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

interface RouterOptions {
  log: LogSink;
  /** The marks of requests our integrations and our VM proxy sent (integrations/loop.ts). */
  loopMarks: LoopMarks;
  /** The VM proxy's routing half (http/vm-proxy.ts). */
  proxy: {
    /** The VM a request's `Host: <vm>.<domain>` names, or null for the service itself. */
    vmLabel(req: IncomingMessage): string | null;
    /** Answers a VM's request on a connection node:http serves (its first was not for a VM). */
    misdirected: Handler;
  };
  exec: Handler;
  health: Handler;
  /** The dashboard (SPEC §11): the requests it owns under /_/. */
  dashboard: { owns(req: IncomingMessage): boolean; serve: Handler };
}

/** The main listener's `route`. */
export function createRouter(options: RouterOptions): Handler {
  const { log, loopMarks, proxy, exec, health, dashboard } = options;
  // A request no route takes: one log line like every request, answered by the funnel.
  const refuse = (req: IncomingMessage, res: ServerResponse, refusal: ExectlError) =>
    runLogged(
      log,
      // Sign-in links are secrets: their paths are logged redacted.
      newLogEntry('http', `${req.method} ${loggedPath((req.url ?? '/').split('?')[0]!)}`),
      async () => {
        throw refusal;
      },
      (err) => sendError(res, err),
    );

  return (req, res) => {
    const loop = loopOf(req, loopMarks);
    if (loop !== null) return refuse(req, res, loop);
    const repeated = repeatedSingleton(req);
    if (repeated !== null) return refuse(req, res, repeated);
    // `Host: <vm>.<domain>` is the VM's address, whatever the path (SPEC §6). The VM proxy
    // serves connections whose first request is for a VM; this one's was not.
    if (proxy.vmLabel(req) !== null) return proxy.misdirected(req, res);
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/exec') return exec(req, res);
    if (path === '/healthz') return health(req, res);
    if (dashboard.owns(req)) return dashboard.serve(req, res);
    return refuse(
      req,
      res,
      new ExectlError('not_found', 'not found', { hint: 'commands go to POST /exec' }),
    );
  };
}
