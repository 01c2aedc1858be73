// One proxied HTTP exchange on raw sockets: the request head (rewritten) and body go to the VM's
// server over a pooled connection, the answer comes back with its head filtered and its body
// framed for the client. Bodies stream both ways with backpressure: a side that cannot take more
// stops the other from reading, so no more than a socket's buffers sit in the server.
import type { Socket } from 'node:net';
import { ExectlError } from '../../errors.js';
import type { VmRecord } from '../store/index.js';
import { connectionHeader } from '../http/error-funnel.js';
import type { ParsedHead } from './http-parser.js';
import type { ClientSide, ProxiedRequest } from './proxied-request.js';
import { headersFromVm, trailersToVm } from './proxy-headers.js';
import { chunkFrame, headLines, lastChunk } from './proxy-wire.js';
import type { Upstream, UpstreamPool } from './upstream-pool.js';

/** Where a request goes, with which headers: what the proxy's admission decided. */
export interface VmTarget {
  vm: VmRecord;
  port: number;
  /** The request headers for the VM's server (proxy-headers.ts). */
  headers: string[];
  /** An upgrade request: a 101 turns the connection into a tunnel. */
  tunnel: boolean;
}

/** Body pieces up to this size go out in the same write as what came before them. */
const SMALL_CHUNK = 16 * 1024;

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
 * Sends `req` to the VM's server and streams its answer to `client`. Resolves with the status
 * answered once the answer is written (the request's body may still be arriving: it goes on to
 * the VM, or is dropped when the VM answered without it).
 *
 * A pooled connection the VM's server closed while idle fails the request that picks it up; a
 * request without a body is then sent once more on a new connection, since the server never saw
 * it. One with a body may already have been partly read from the client: it gets the 502.
 *
 * @throws ExectlError 502 when the VM's server fails before answering; a failure after the
 *   status went out cuts the client's connection instead, since the status cannot change.
 */
export function exchange(
  client: ClientSide,
  req: ProxiedRequest,
  target: VmTarget,
  pool: UpstreamPool,
): Promise<number> {
  return new Promise((resolve, reject) => {
    // The client left (or its connection was cut) while the request was being checked.
    if (client.socket.destroyed) return resolve(CLIENT_CLOSED);
    let status = 0;
    let outChunked = false;
    let closeDelimited = false;
    let requestSent = false;
    let vmKeepsAlive = false;
    let settled = false;
    let upstream: Upstream | null = null;
    const settle = (outcome: number | Error) => {
      if (settled) return;
      settled = true;
      client.socket.removeListener('close', onClientClose);
      if (typeof outcome === 'number') resolve(outcome);
      else reject(outcome);
    };
    const onClientClose = () => {
      upstream?.socket.destroy();
      settle(status === 0 ? CLIENT_CLOSED : status);
    };
    client.socket.on('close', onClientClose);

    let waitingForClient = false;
    const send = (data: string | Buffer) => {
      if (client.write(data) || upstream === null || waitingForClient) return;
      // The client takes no more for now: the VM's answer waits in the kernel, not here.
      const paused = upstream.socket;
      waitingForClient = true;
      paused.pause();
      client.socket.once('drain', () => {
        waitingForClient = false;
        paused.resume();
      });
    };
    // What one read of the VM's answer produces goes out as one write: a head and a small body
    // as one latin1 string (one write syscall, no writev of mixed chunks).
    let batching = false;
    let pending = '';
    const flush = () => {
      if (pending.length === 0) return;
      const data = pending;
      pending = '';
      send(data);
    };
    const toClient = (data: string | Buffer) => {
      if (!batching) return send(data);
      if (typeof data === 'string') pending += data;
      else if (data.length <= SMALL_CHUNK) pending += data.toString('latin1');
      else {
        flush();
        send(data);
      }
    };
    const finished = (up: Upstream, keepAlive: boolean) => {
      if (keepAlive && requestSent && !closeDelimited) pool.give(up);
      else up.socket.destroy();
      // The rest of a body the VM answered without is read and dropped.
      if (!requestSent) req.sink = { chunk: () => {}, end: () => {} };
      settle(status);
    };

    const handler = (up: Upstream, retried: boolean) => ({
      head(head: ParsedHead): 0 | 1 | 2 {
        if (head.statusCode === 101 && target.tunnel) {
          status = 101;
          toClient(headLines(`HTTP/1.1 101 ${head.statusMessage}`, head.rawHeaders, ''));
          return 2;
        }
        if (head.statusCode < 200) {
          // A 100 is the proxy's to send (it answered `Expect` itself); other 1xx go on.
          if (head.statusCode !== 100 && head.statusCode !== 101 && req.head.versionMinor > 0) {
            toClient(headLines(statusLine(head), headersFromVm(head.rawHeaders), ''));
          }
          return 1;
        }
        status = head.statusCode;
        vmKeepsAlive = head.keepAlive && !target.tunnel;
        const bodyless = req.method === 'HEAD' || status === 204 || status === 304;
        const length = hasHeader(head.rawHeaders, 'content-length');
        const upstreamChunked = hasHeader(head.rawHeaders, 'transfer-encoding');
        let framing = '';
        if (bodyless) {
          if (upstreamChunked && req.method === 'HEAD') framing = 'Transfer-Encoding: chunked\r\n';
        } else if (!length) {
          closeDelimited = !upstreamChunked;
          outChunked = req.head.versionMinor > 0;
          if (outChunked) framing = 'Transfer-Encoding: chunked\r\n';
        }
        const keepAlive = client.keepAlive(req) && (bodyless || length || outChunked);
        if (!keepAlive) req.head.keepAlive = false;
        framing += connectionHeader(keepAlive);
        toClient(headLines(statusLine(head), headersFromVm(head.rawHeaders), framing));
        return bodyless ? 1 : 0;
      },
      body(chunk: Buffer) {
        toClient(outChunked ? chunkFrame(chunk) : chunk);
      },
      complete(trailers: string[]) {
        // The end of a 1xx (the answer follows), or of a 101 (the tunnel takes over).
        if (status === 0 || status === 101) return;
        if (outChunked) toClient(lastChunk(headersFromVm(trailers)));
        finished(up, vmKeepsAlive);
      },
      upgraded(socket: Socket, rest: Buffer) {
        client.handOver(socket, rest).then(
          () => settle(101),
          () => settle(101),
        );
      },
      gone(cause: unknown) {
        if (settled) return;
        if (status !== 0) {
          // Too late for a status: the client sees the answer cut short.
          client.socket.destroy();
          settle(status);
        } else if (up.reused && !retried && !req.hasBody) {
          connect(true);
        } else {
          settle(vmNotAnswering(target.vm.name, target.port, cause));
        }
      },
      drain: () => client.release('vm busy'),
      batch<T>(parse: () => T): T {
        batching = true;
        try {
          return parse();
        } finally {
          batching = false;
          flush();
        }
      },
    });

    const use = (up: Upstream, fresh: boolean) => {
      if (settled) return pool.give(up);
      upstream = up;
      up.handler = handler(up, fresh);
      writeRequest(client, req, target, up, () => (requestSent = true));
    };
    const connect = (fresh: boolean) => {
      const idle = fresh || target.tunnel ? null : pool.takeIdle(target.vm, target.port);
      if (idle !== null) return use(idle, fresh);
      pool.open(target.vm, target.port).then(
        (up) => use(up, fresh),
        (err: unknown) => settle(vmNotAnswering(target.vm.name, target.port, err)),
      );
    };
    connect(false);
  });
}

/**
 * Writes the request head and the body read so far to `up`, then lets the rest of the body flow
 * there as it arrives: chunked bodies go on chunked, with their trailers, others as they came.
 */
function writeRequest(
  client: ClientSide,
  req: ProxiedRequest,
  target: VmTarget,
  up: Upstream,
  sent: () => void,
): void {
  const socket = up.socket;
  const framing = req.chunked && !target.tunnel ? 'Transfer-Encoding: chunked\r\n' : '';
  const write = (data: string | Buffer) => {
    // Strings are heads: latin1, one byte per character (proxy-wire.ts).
    if (!(typeof data === 'string' ? socket.write(data, 'latin1') : socket.write(data))) {
      client.hold('vm busy');
    }
  };
  socket.cork();
  write(headLines(`${req.method} ${req.url} HTTP/1.1`, target.headers, framing));
  req.sink = {
    chunk: (data) => write(req.chunked ? chunkFrame(data) : data),
    end: (trailers) => {
      if (req.chunked) write(lastChunk(trailersToVm(trailers)));
      sent();
    },
  };
  for (const data of req.body) req.sink.chunk(data);
  req.body = [];
  client.release('body waiting');
  if (req.complete) req.sink.end(req.trailers);
  socket.uncork();
}

function statusLine(head: ParsedHead): string {
  return `HTTP/1.1 ${head.statusCode} ${head.statusMessage}`;
}

function hasHeader(rawHeaders: readonly string[], lower: string): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.length === lower.length && rawHeaders[i]!.toLowerCase() === lower) {
      return true;
    }
  }
  return false;
}
