// Which handler answers an HTTP request on the main listener (SPEC §2, §6): a request that
// came back through one of our own integrations is refused, a VM's address goes to the proxy
// whatever the path, then /exec and /healthz; anything else is a logged 404.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ExectlError } from '../../errors.js';
import type { LogSink } from '../config.js';
import { cameBack, integrationLoop } from '../integrations/loop.js';
import { newLogEntry, runLogged } from '../request-log.js';
import { sendError } from './error-funnel.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

interface RouterOptions {
  log: LogSink;
  /** The mark every request our integrations forward carries (integrations/loop.ts). */
  loopMark: string;
  /** The VM proxy's routing half (http/vm-proxy.ts). */
  proxy: {
    /** The VM a request's `Host: <vm>.<domain>` names, or null for the service itself. */
    vmLabel(req: IncomingMessage): string | null;
    forward(req: IncomingMessage, res: ServerResponse, vm: string): Promise<void>;
  };
  exec: Handler;
  health: Handler;
}

/** The main listener's `route`. */
export function createRouter({ log, loopMark, proxy, exec, health }: RouterOptions): Handler {
  // A request no route takes: one log line like every request, answered by the funnel.
  const refuse = (req: IncomingMessage, res: ServerResponse, refusal: ExectlError) =>
    runLogged(
      log,
      newLogEntry('http', `${req.method} ${(req.url ?? '/').split('?')[0]}`),
      async () => {
        throw refusal;
      },
      (err) => sendError(res, err),
    );

  return (req, res) => {
    if (cameBack(req, loopMark)) return refuse(req, res, integrationLoop());
    // `Host: <vm>.<domain>` is the VM's address, whatever the path (SPEC §6).
    const vm = proxy.vmLabel(req);
    if (vm !== null) return proxy.forward(req, res, vm);
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/exec') return exec(req, res);
    if (path === '/healthz') return health(req, res);
    return refuse(
      req,
      res,
      new ExectlError('not_found', 'not found', { hint: 'commands go to POST /exec' }),
    );
  };
}
