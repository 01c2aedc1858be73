import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { VmOrigin } from '../vm/contract.js';
import type { Duplex } from 'node:stream';
import { ExectlError } from '../../errors.js';
import type { ListenAddress, LogSink } from '../config.js';
import { capConnections, type ConnectionLimits } from './connection-caps.js';
import { sendError } from './error-funnel.js';
import { markVmConnection } from '../rules/client-address.js';

type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Node's `upgrade` event: the request, its raw socket, and the bytes read past its head. */
type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

export interface HttpListener {
  /** Base URL clients use, e.g. `http://127.0.0.1:7070`. */
  url: string;
  address: { host: string; port: number };
  /**
   * Serves a connection a machine VM opened to this listener inside its own network (the
   * listening socket there is vm/'s), like any other (TLS included): its limits count under
   * its VM and that VM's account (`origin`, rules/client-address.ts), never under its loopback
   * address.
   */
  accept(socket: Socket, origin: VmOrigin): void;
  /**
   * Stops accepting, cuts upgraded connections, lets running requests finish (up to
   * `graceMs`), then cuts the rest.
   */
  close(graceMs?: number): Promise<void>;
}

/** What {@link listenHttp} serves, and how. */
export interface HttpListenerOptions {
  /** Names the listener in errors and warnings: `--listen`, `--reflection-listen`. */
  name: string;
  listen: ListenAddress;
  /** Serve HTTPS with this certificate and key; null: plain HTTP. */
  tls: { cert: Buffer; key: Buffer } | null;
  route: RequestHandler;
  /** Requests asking for a protocol upgrade (`Connection: upgrade`); absent: served as plain. */
  upgrade?: UpgradeHandler;
  /**
   * Sees each new connection first (after TLS): keeps it (the VM proxy) or gives it back, with
   * the bytes it read, for node:http to serve as any other.
   */
  claim?: {
    serveConnection(socket: Socket, handBack: (socket: Socket, read: Buffer[]) => void): void;
    /** Ends the connections it kept: idle ones now, the others after their answer or `graceMs`. */
    closeConnections(graceMs: number): void;
  };
  /** Caps on open connections and idle times (connection-caps.ts). */
  limits: ConnectionLimits;
  log: LogSink;
}

/** How often Node checks its connections against the header and request timeouts. */
const TIMEOUT_CHECK_MS = 1_000;

/**
 * Starts an HTTP (or, with `tls`, HTTPS) listener that hands every request to `route`.
 * A handler that throws unexpectedly still answers, through the error funnel. Requests asking
 * for a protocol upgrade (`Connection: upgrade`) go to `upgrade`, when given, with their socket.
 * Connections past `limits`' caps are closed at once, and idle ones after its timeouts.
 */
export async function listenHttp(options: HttpListenerOptions): Promise<HttpListener> {
  const { listen, tls, route, upgrade, limits } = options;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    route(req, res).catch((err: unknown) => sendError(res, err));
  };
  // Node checks the timeouts every 30 s by default: an idle connection would stay up to 30 s
  // longer than the headers timeout says.
  const serverOptions = {
    connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    headersTimeout: limits.headersTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
  };
  const server: Server = tls
    ? // A TLS handshake comes before any header: it gets no longer than the headers.
      createHttpsServer(
        { ...tls, ...serverOptions, handshakeTimeout: limits.headersTimeoutMs },
        handle,
      )
    : createHttpServer(serverOptions, handle);
  if (options.claim !== undefined) claimConnections(server, tls !== null, options.claim);
  capConnections(server, limits, options.name, options.log);
  // "Expect: 100-continue" is answered by the route when it is ready to read the body, so a
  // request refused on its headers alone (405, 401, 429, a declared 413) never invites it.
  server.on('checkContinue', handle);
  // Without a listener Node serves upgrade requests as plain ones; with one, it hands them all here.
  const upgraded = new Set<Duplex>();
  if (upgrade !== undefined) {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      // Node no longer tracks an upgraded connection, yet the server cannot close while it lives.
      upgraded.add(socket);
      socket.once('close', () => upgraded.delete(socket));
      upgrade(req, socket, head);
    });
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new ExectlError(
          'cannot_start',
          `cannot listen on ${listen.host}:${listen.port}: ${err.code ?? err.message}`,
          // The same listener code serves --listen and --reflection-listen.
          { hint: 'choose another address, or stop the process using this one' },
        ),
      ),
    );
    server.listen(listen.port, listen.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  return {
    url: `${tls ? 'https' : 'http'}://${host}:${port}`,
    address: { host: listen.host, port },
    accept(socket, origin) {
      markVmConnection(socket, origin);
      // Once closed, the server takes no connection: the VM's sees its connection end.
      if (server.listening) server.emit('connection', socket);
      else socket.destroy();
    },
    close: (graceMs = 5_000) =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        options.claim?.closeConnections(graceMs);
        server.closeIdleConnections();
        // A tunnel (WebSocket) has no end of its own to wait for.
        for (const socket of upgraded) socket.destroy();
        setTimeout(() => server.closeAllConnections(), graceMs).unref();
      }),
  };
}

/**
 * Puts `claim` before node:http on each new connection: node:http's own listener (on the TLS
 * server, the one for `secureConnection`) runs only for connections `claim` gives back, with
 * the bytes claim read handed to it first. node:http then reads them as if it had been first.
 */
function claimConnections(
  server: Server,
  tls: boolean,
  claim: NonNullable<HttpListenerOptions['claim']>,
): void {
  const event = tls ? 'secureConnection' : 'connection';
  const nodeOwn = server.listeners(event) as ((socket: Socket) => void)[];
  server.removeAllListeners(event);
  const handBack = (socket: Socket, read: Buffer[]) => {
    // node:http's listener takes the handle and reads it natively from now on (the fast path of
    // its parser); the bytes claim already read go to that parser first, as a read would.
    for (const listener of nodeOwn) listener.call(server, socket);
    if (read.length > 0) socket.emit('data', read.length === 1 ? read[0]! : Buffer.concat(read));
    socket.resume();
  };
  server.on(event, (socket: Socket) => {
    // A connection past the caps (connection-caps.ts) was destroyed before it got here.
    if (!socket.destroyed) claim.serveConnection(socket, handBack);
  });
}
