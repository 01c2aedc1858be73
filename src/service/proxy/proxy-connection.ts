// A client connection of the VM proxy, served on the raw socket: llhttp frames each request,
// each one is handed to `serve` in turn (which checks and forwards it), pipelined ones wait.
// The listener gives every connection here first; one whose first request is not for a VM goes
// back to node:http untouched (`handBack`, with every byte read so far).
import { maxHeaderSize } from 'node:http';
import type { Socket } from 'node:net';
import { refusalBytes } from '../http/error-funnel.js';
import { createParser, headerMap, MAX_HEADER_PAIRS, type ParsedHead } from './http-parser.js';
import type { ClientSide, ProxiedRequest } from './proxied-request.js';

/** What a connection needs from the proxy. */
export interface ConnectionOptions {
  /** The VM label of a Host header, or null when the request is for the service itself. */
  vmLabel(host: string | undefined): string | null;
  /** node:http takes the connection, `read` first (its first request was not for a VM). */
  handBack(socket: Socket, read: Buffer[]): void;
  /** Answers one request (its checks, the exchange, the log line); never rejects. */
  serve(client: ClientSide, req: ProxiedRequest): Promise<void>;
  /** Joins the client to the VM's server after a 101. */
  tunnel(client: Socket, upstream: Socket, toVm: Buffer, toClient: Buffer): Promise<void>;
}

/** Bytes of bodies read ahead of their request's turn before the connection stops reading. */
const READ_AHEAD = 64 * 1024;

/**
 * Bytes kept for node:http before the first head is whole. llhttp refuses a head past node's
 * header limit, but skips blank lines before a request without counting them: a client sending
 * only CRLF would otherwise make the server keep all it sends until the head timeout.
 */
const BEFORE_FIRST_HEAD = 2 * maxHeaderSize;

/** The state of one connection, as the listener's timeouts read it (proxy-connections.ts). */
export interface ProxyConnection {
  /** When the head being read began (or the connection opened), null when none is. */
  headSince: number | null;
  /** Since when nothing is asked or answered, null while a request is. */
  idleSince: number | null;
  /** Ends the connection after the answer being written (at once when idle). */
  wind(): void;
  socket: Socket;
}

/** Serves `socket` as a VM proxy connection until it closes or goes back to node:http. */
export function serveConnection(socket: Socket, options: ConnectionOptions): ProxyConnection {
  let read: Buffer[] | null = []; // until the first head decides who serves the connection
  let readBytes = 0;
  let handedBack = false;
  const queue: ProxiedRequest[] = [];
  let parsing: ProxiedRequest | null = null;
  let readAhead = 0;
  let held: Buffer | null = null; // bytes past an upgrade request, until its answer
  let ending = false;
  let broken = false; // a framing error: nothing after it is served
  let upgrading = false;
  let tunnelled = false;
  const holds = new Set<string>();
  const state: ProxyConnection = {
    headSince: Date.now(),
    idleSince: null,
    socket,
    wind() {
      ending = true;
      if (queue.length === 0) socket.destroy();
    },
  };

  const refuse = (status: 400 | 408 | 431) => {
    ending = true;
    broken = true;
    if (queue.length === 0) {
      socket.end(refusalBytes(status), 'latin1');
      socket.resume(); // unread bytes at close would reset the answer away
    }
    // With an answer under way the refusal waits for it; pending requests are never served.
    else queue.splice(1);
  };

  const parser = createParser('request', {
    head(head: ParsedHead) {
      if (handedBack || broken) return 1;
      // One pass over the headers, read by every check after this one.
      const headers = headerMap(head.rawHeaders);
      const label = options.vmLabel(headers.host as string | undefined);
      if (read !== null && label === null) {
        handedBack = true;
        return 1;
      }
      read = null;
      state.headSince = null;
      state.idleSince = null;
      const req = newRequest(head, headers, socket, label ?? '');
      parsing = req;
      if (!wellFramed(head)) {
        refuse(400);
        return 1;
      }
      // Served once the read it came in is parsed without error (see onData).
      queue.push(req);
      return 0;
    },
    body(chunk) {
      const req = parsing;
      if (req === null || handedBack || broken) return;
      if (req.sink !== null) return req.sink.chunk(chunk);
      req.body.push(chunk);
      readAhead += chunk.length;
      if (readAhead > READ_AHEAD) hold('body waiting');
    },
    complete(trailers) {
      const req = parsing;
      parsing = null;
      if (req === null || handedBack || broken) return;
      req.complete = true;
      req.trailers = trailers;
      upgrading = req.head.upgrade;
      req.sink?.end(trailers);
      if (queue[0] === req && req.exchanged) finish();
    },
  });

  const client: ClientSide = {
    socket,
    write: (data) => socket.write(data, 'latin1'),
    hold: (reason) => hold(reason),
    release: (reason) => release(reason),
    keepAlive: (req) => req.head.keepAlive && !ending && req.complete,
    async handOver(upstream, fromVm) {
      ending = true;
      tunnelled = true;
      socket.removeListener('data', onData);
      const toVm = held ?? Buffer.alloc(0);
      held = null;
      await options.tunnel(socket, upstream, toVm, fromVm);
    },
  };

  /** Serves the request at the head of the queue; the next one waits for its end. */
  const next = async () => {
    const req = queue[0]!;
    req.started = true;
    await options.serve(client, req);
    req.exchanged = true;
    if (req.complete) finish();
    else if (!client.keepAlive(req) || req.sink === null) {
      // Refused before its body was read: the rest of it is not read at all.
      socket.end();
    }
  };

  /** The request at the head of the queue is over: the next one's turn, or the end. */
  const finish = () => {
    if (tunnelled) return;
    const done = queue.shift()!;
    readAhead = 0;
    release('body waiting');
    if (!done.head.keepAlive || (ending && queue.length === 0)) {
      socket.end();
      return;
    }
    if (queue.length > 0) return void next();
    state.idleSince = Date.now();
    if (held !== null) {
      // An upgrade the VM refused: the bytes after it are requests like any other.
      const rest = held;
      held = null;
      release('upgrade');
      onData(rest);
    }
  };

  const hold = (reason: string) => {
    holds.add(reason);
    socket.pause();
  };
  const release = (reason: string) => {
    if (holds.delete(reason) && holds.size === 0) socket.resume();
  };

  const onData = (chunk: Buffer) => {
    if (held !== null) {
      held = Buffer.concat([held, chunk]);
      return;
    }
    if (broken) return;
    if (read !== null) {
      read.push(chunk);
      readBytes += chunk.length;
    }
    if (state.idleSince !== null) {
      state.idleSince = null;
      state.headSince = Date.now();
    }
    const parsed = parser.execute(chunk);
    if (handedBack) {
      socket.removeListener('data', onData);
      socket.removeListener('end', onEnd);
      socket.removeListener('close', onClose);
      socket.pause();
      parser.free();
      return options.handBack(socket, read!);
    }
    if (typeof parsed !== 'number') return failed(parsed.code);
    if (read !== null && readBytes > BEFORE_FIRST_HEAD) {
      read = null;
      return refuse(400);
    }
    if (queue.length > 0 && !queue[0]!.started) void next();
    if (upgrading) {
      // An upgrade request ends the HTTP framing: what follows waits for the VM's answer.
      upgrading = false;
      held = chunk.subarray(parsed);
      hold('upgrade');
    }
  };

  const failed = (code: string) => {
    const req = parsing;
    // A body cut by a framing error must never reach the VM whole: the connection is cut.
    if (req?.started === true) return void socket.destroy();
    // A head llhttp read whole before failing on what follows it (`Transfer-Encoding: gzip`)
    // is never served.
    if (req !== null) queue.pop();
    refuse(code === 'HPE_HEADER_OVERFLOW' ? 431 : 400);
    // Whole requests before the failure are served; the connection ends after them.
    if (queue.length > 0 && !queue[0]!.started) void next();
  };

  const onClose = () => parser.free();
  // The listener keeps half-open connections (node:http's allowHalfOpen): a client that ended
  // its side gets the answers under way, then the connection ends.
  const onEnd = () => {
    ending = true;
    if (queue.length === 0 && !tunnelled) socket.end();
  };
  socket.on('data', onData);
  socket.on('end', onEnd);
  socket.on('close', onClose);
  socket.on('error', () => socket.destroy());
  return state;
}

/** A request as the queue keeps it. */
function newRequest(
  head: ParsedHead,
  headers: ProxiedRequest['headers'],
  socket: Socket,
  label: string,
): ProxiedRequest {
  const length = headers['content-length'];
  const chunked = headers['transfer-encoding'] !== undefined;
  return {
    head,
    method: head.method,
    url: head.url,
    rawHeaders: head.rawHeaders,
    headers,
    socket,
    label,
    chunked,
    hasBody: chunked || (length !== undefined && length !== '0'),
    body: [],
    complete: false,
    trailers: [],
    sink: null,
    started: false,
    exchanged: false,
  };
}

/**
 * What node:http lets through but a proxy must not: a Host given twice (the VM's server may read
 * the other one), more header lines than node:http keeps, HTTP/1.1 without a Host.
 */
export function wellFramed(head: ParsedHead): boolean {
  if (head.rawHeaders.length > MAX_HEADER_PAIRS * 2) return false;
  let hosts = 0;
  for (let i = 0; i < head.rawHeaders.length; i += 2) {
    if (head.rawHeaders[i]!.length === 4 && head.rawHeaders[i]!.toLowerCase() === 'host') hosts++;
  }
  return hosts === 1 || (hosts === 0 && head.versionMinor === 0 && head.versionMajor === 1);
}
