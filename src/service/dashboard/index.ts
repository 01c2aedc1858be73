// The dashboard on the HTTP listener (SPEC §11): pages and API under `/_/`, the terminal's
// WebSocket at `/_/api/terminal`. The composition root wires it in front of the 404.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { LogSink } from '../config.js';
import { InFlightCommands } from '../http/in-flight.js';
import type { AdmitEnvironment } from './admit-line.js';
import { createApi } from './api.js';
import { allowedHosts } from './guard.js';
import { createPages } from './pages.js';
import type { RequestHistory } from './request-history.js';
import { createTerminalUpgrade } from './terminal.js';

export { RequestHistory } from './request-history.js';
export { SignIns } from './sign-ins.js';
export { loggedPath } from './pages.js';
export { dashboardOrigin } from './guard.js';

/** Where the dashboard lives on the HTTP listener. */
const PREFIX = '/_/';

interface DashboardOptions extends AdmitEnvironment {
  log: LogSink;
  history: RequestHistory;
  /** Aborted when the server stops. */
  shutdown: AbortSignal;
}

/** The dashboard's share of the HTTP listener. */
export interface Dashboard {
  /** Whether `req` is the dashboard's (its path is under `/_/`). */
  owns(req: IncomingMessage): boolean;
  serve(req: IncomingMessage, res: ServerResponse): Promise<void>;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

/** The dashboard of the service whose collaborators `options.deps` are. */
export function createDashboard(options: DashboardOptions): Dashboard {
  const { deps } = options;
  const tls = deps.config.tls !== null;
  let hosts: Set<string> | undefined;
  // Known once the listener listens (its port may have been 0).
  const hostsNow = () => (hosts ??= allowedHosts(deps.config, deps.endpoints.http));
  const api = createApi({
    ...options,
    signIns: deps.signIns,
    inFlight: new InFlightCommands(options.shutdown),
  });
  return {
    owns: (req) => (req.url ?? '').startsWith(PREFIX),
    serve: createPages({ log: options.log, tls, hosts: hostsNow, signIns: deps.signIns, api }),
    upgrade: createTerminalUpgrade({
      ...options,
      tls,
      hosts: hostsNow,
      signIns: deps.signIns,
    }),
  };
}
