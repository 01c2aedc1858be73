import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ExectlError } from '../../errors.js';
import type { LogSink } from '../config.js';
import { newLogEntry, runLogged } from '../request-log.js';
import { sendError, writeJson } from './error-funnel.js';

interface HealthOptions {
  log: LogSink;
  /** exectl's version, the one thing besides the uptime a health check learns. */
  version: string;
  /** Whether every listener is up. */
  ready: () => boolean;
  /** Aborted when the server begins to stop; its reason is the answer from then on. */
  shutdown?: AbortSignal;
}

/**
 * `GET /healthz` (SPEC §7): 200 `{"status":"ok","version","uptime_s"}` with no token once
 * `ready()`, else 503; `HEAD` answers the same without the body, any other method 405 with
 * `Allow: GET, HEAD`, as /exec does for its own. Logged at debug level only, with the Host that
 * polls (health checks come every few seconds and would drown the requests). The uptime counts
 * from the handler's creation, when the service starts.
 */
export function createHealthHandler(options: HealthOptions) {
  const started = performance.now();
  return (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const entry = newLogEntry('http', `${req.method} /healthz`);
    entry.routine = { host: req.headers.host ?? '-' };
    const idHeader = { 'X-Request-Id': entry.requestId };
    return runLogged(
      options.log,
      entry,
      async () => {
        if (req.method !== 'GET' && req.method !== 'HEAD') {
          throw new ExectlError('method_not_allowed', 'method not allowed', {
            headers: { Allow: 'GET, HEAD' },
          });
        }
        if (options.shutdown?.aborted === true) throw options.shutdown.reason;
        if (!options.ready()) {
          throw new ExectlError('unavailable', 'server is starting', {
            hint: 'ask again in a moment',
          });
        }
        const uptime = Math.floor((performance.now() - started) / 1000);
        writeJson(res, 200, { status: 'ok', version: options.version, uptime_s: uptime }, idHeader);
        return 200;
      },
      (err) => sendError(res, err, idHeader),
    );
  };
}
