// One proxied HTTP exchange: the request streams to the VM's server, the answer streams back,
// over keep-alive connections to the VM's server reused from one request to the next.
import {
  Agent,
  request,
  type ClientRequest,
  type ClientRequestArgs,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ExectlError } from '../../errors.js';
import { headersFromVm } from './proxy-headers.js';

/** How a VM's server is reached: connections made inside the VM's own network. */
export interface VmUpstream {
  vmName: string;
  /** Names the VM for the pool of kept-alive connections: its id. */
  vmId: number;
  port: number;
  /** A new connection to `port` inside the VM (contract.ts `VmMachines.connect`). */
  connect(): Promise<Socket>;
}

/** A request's way to its connection: `connect` of its {@link VmUpstream}, once connected. */
type ConnectionMaker = NonNullable<ClientRequestArgs['createConnection']>;

function connectionMaker(connect: () => Promise<Socket>): ConnectionMaker {
  return (_options, done) => {
    connect().then(
      (socket) => done(null, socket),
      (err: Error) => done(err, undefined as unknown as Duplex),
    );
    return undefined;
  };
}

/** Node's agent, whose new connections are the request's own `createConnection`'s. */
class VmAgent extends Agent {
  override createConnection(
    options: ClientRequestArgs,
    done?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    return options.createConnection!(options, done!);
  }
}

/**
 * How long an idle connection to a VM's server is kept for the next request, unless the server
 * announces a shorter `Keep-Alive: timeout` (Node's agent then closes it a second before).
 */
const IDLE_MS = 4_000;

/**
 * The connections to VMs' servers, kept alive between requests. Node's agent pools them by
 * "host" and port, here the VM's id and its port, so a connection to one VM never serves
 * another. Without it every request paid a new connection into the VM.
 */
export function createUpstreamAgent(): Agent {
  return new VmAgent({ keepAlive: true, timeout: IDLE_MS, scheduling: 'lifo' });
}

/**
 * The request for `req` to the VM's server, with `headers`, on a pooled connection of `agent`,
 * or a connection of its own when `agent` is false (an upgrade, which ends its connection).
 */
export function requestToVm(
  req: IncomingMessage,
  target: VmUpstream & { headers: string[] },
  agent: Agent | false,
): ClientRequest {
  return request({
    // Never resolved or dialled: the pool's key only (the headers carry the client's Host).
    host: `vm-${target.vmId}.invalid`,
    port: target.port,
    createConnection: connectionMaker(target.connect),
    method: req.method,
    path: req.url,
    headers: target.headers,
    // No agent (not `false`, which would make Node's default one) uses `createConnection`.
    agent: agent === false ? undefined : agent,
  });
}

/** The log status of an exchange that ended before any answer (nginx: "client closed request"). */
export const CLIENT_CLOSED = 499;

/** The 502 for a VM whose server cannot be reached or gave no answer. */
export function vmNotAnswering(vmName: string, port: number, cause: unknown): ExectlError {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return new ExectlError('bad_gateway', `vm "${vmName}" is not answering on port ${port}`, {
    hint: `start a server on port ${port} inside the VM, or change the port with \`share port ${vmName} <port>\``,
    logDetail: code ?? String(cause),
  });
}

/**
 * Sends `req` with `headers` to the VM's server on `port` over a pooled connection of `agent`
 * and streams its answer into `res`, both bodies piped without buffering (each side waits for
 * the other to drain). Resolves with the status sent once the exchange is over (the client
 * hanging up ends it too, and the upstream request and its connection with it).
 *
 * A pooled connection the VM's server closed while idle fails the request that picks it up;
 * a request without a body is then sent once more on a new connection, since the server never
 * saw it. One with a body may already have been partly read from the client: it gets the 502.
 *
 * @throws ExectlError 502 when the VM's server fails before answering; a failure after the
 *   status went out cuts the client's connection instead, since the status cannot change.
 */
export function relayToVm(
  req: IncomingMessage,
  res: ServerResponse,
  target: VmUpstream & { headers: string[] },
  agent: Agent,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let upstream: ClientRequest;
    let answered = false;
    const onAnswer = (answer: IncomingMessage) => {
      answered = true;
      res.writeHead(
        answer.statusCode ?? 502,
        answer.statusMessage,
        headersFromVm(answer.rawHeaders),
      );
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    };
    const send = (via: Agent | false) => {
      upstream = requestToVm(req, target, via);
      upstream.on('response', onAnswer);
      upstream.on('error', (err) => {
        if (via !== false && upstream.reusedSocket && !answered && hasNoBody(req)) {
          return send(false);
        }
        if (res.headersSent) res.destroy();
        else reject(vmNotAnswering(target.vmName, target.port, err));
      });
      if (hasNoBody(req)) upstream.end();
      else req.pipe(upstream);
    };
    send(agent);
    res.on('close', () => {
      // An answer that did not end (the client left) must not leave its connection in the pool.
      if (!res.writableFinished) upstream.destroy();
      // Nothing sent means the client left first.
      resolve(res.headersSent ? res.statusCode : CLIENT_CLOSED);
    });
  });
}

/** A request whose head says it has no body (no length, or 0, and no chunked transfer). */
function hasNoBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length === undefined || length === '0') && req.headers['transfer-encoding'] === undefined;
}
