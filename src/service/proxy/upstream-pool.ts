// Connections to VMs' servers, kept alive between requests and reused, one pool per VM and
// port: a connection to one VM never serves another. Each is a socket from
// `VmMachines.connect` (made inside the VM's network) with Node's llhttp reading its answers.
import type { Socket } from 'node:net';
import type { VmRecord } from '../store/index.js';
import type { VmMachines } from '../vm/index.js';
import { createParser, type ParsedHead, type ParseFailure } from './http-parser.js';

/**
 * How long an idle connection to a VM's server is kept for the next request: with the sweep's
 * period, less than the 5 s node:http servers keep theirs, so that the proxy, not the server, is
 * the one to close it (a request sent on a connection the server is closing would fail).
 */
const IDLE_MS = 3_000;
/**
 * How often idle connections are looked at. One timer for all of them: a socket timeout set and
 * cleared around every request was a timer-list insertion per request.
 */
const SWEEP_MS = 500;

/** What the exchange using a connection is told of it. */
export interface UpstreamHandler {
  /** An answer's head; returns what llhttp expects (see ParserEvents.head). */
  head(head: ParsedHead): 0 | 1 | 2;
  body(chunk: Buffer): void;
  complete(trailers: string[]): void;
  /** After a head answered with 2 (a 101): the socket is no longer HTTP; `rest` came after it. */
  upgraded(socket: Socket, rest: Buffer): void;
  /** The connection ended or failed (an unparsable answer, a reset) before its exchange did. */
  gone(cause: unknown): void;
  /** Its write buffer emptied: the client's body may flow again. */
  drain(): void;
  /** Runs the parsing of one read, so that what it writes to the client goes out in one write. */
  batch<T>(parse: () => T): T;
}

/** One connection to a VM's server. */
export class Upstream {
  readonly socket: Socket;
  readonly key: string;
  /** It served a request before: the server may have closed it since (see exchange's retry). */
  reused = false;
  /** When it went back to its pool (Date.now()); meaningless while in use. */
  idleSince = 0;
  handler: UpstreamHandler | null = null;
  #upgrading = false;

  constructor(socket: Socket, key: string, forget: (upstream: Upstream) => void) {
    this.socket = socket;
    this.key = key;
    const parser = createParser('response', {
      head: (head) => {
        const verdict = this.handler?.head(head) ?? 1;
        this.#upgrading = verdict === 2;
        return verdict;
      },
      body: (chunk) => this.handler?.body(chunk),
      complete: (trailers) => this.handler?.complete(trailers),
    });
    const fail = (cause: unknown) => {
      const handler = this.handler;
      this.handler = null;
      socket.destroy();
      handler?.gone(cause);
    };
    socket.on('data', (chunk: Buffer) => {
      // Bytes from an idle connection answer nothing that was asked: it cannot be trusted.
      if (this.handler === null) return fail(new Error('unsolicited bytes'));
      const parsed = this.handler.batch(() => parser.execute(chunk));
      if (typeof parsed !== 'number') return fail(parsed);
      if (this.#upgrading) {
        socket.removeAllListeners('data');
        socket.removeAllListeners('end');
        socket.removeAllListeners('drain');
        socket.removeAllListeners('timeout');
        const handler = this.handler;
        this.handler = null;
        handler?.upgraded(socket, chunk.subarray(parsed));
      }
    });
    socket.on('end', () => {
      // The end of an answer delimited by the close completes it; any other end cuts one short.
      const failure: ParseFailure | undefined = parser.finish();
      fail(failure ?? new Error('connection closed'));
    });
    socket.on('error', fail);
    socket.on('close', () => {
      forget(this);
      parser.free();
      fail(new Error('connection closed'));
    });
    socket.on('drain', () => this.handler?.drain());
  }
}

/** The pools of connections to VMs' servers. */
export class UpstreamPool {
  readonly #idle = new Map<string, Upstream[]>();
  readonly #connect: VmMachines['connect'];
  #sweeper: NodeJS.Timeout | null = null;

  constructor(connect: VmMachines['connect']) {
    this.#connect = connect;
  }

  /**
   * The most recently idle connection to `port` of `vm`, or null when its pool has none. Taken
   * without a promise: this is on every proxied request.
   */
  takeIdle(vm: VmRecord, port: number): Upstream | null {
    const idle = this.#idle.get(poolKey(vm, port));
    while (idle !== undefined && idle.length > 0) {
      const upstream = idle.pop()!;
      // Closed while idle, its 'close' not yet seen: never handed out.
      if (!upstream.socket.destroyed) return upstream;
    }
    return null;
  }

  /** A new connection to `port` of `vm`. @throws its error (`ECONNREFUSED` when nothing listens). */
  async open(vm: VmRecord, port: number): Promise<Upstream> {
    const socket = await this.#connect(vm, port);
    socket.setNoDelay(true);
    return new Upstream(socket, poolKey(vm, port), (gone) => this.#remove(gone));
  }

  /** Keeps `upstream`, whose exchange ended cleanly, for the next request to its VM and port. */
  give(upstream: Upstream): void {
    upstream.handler = null;
    if (upstream.socket.destroyed) return;
    upstream.reused = true;
    upstream.idleSince = Date.now();
    const idle = this.#idle.get(upstream.key);
    if (idle === undefined) this.#idle.set(upstream.key, [upstream]);
    else idle.push(upstream);
    this.#sweeper ??= setInterval(() => this.#sweep(Date.now()), SWEEP_MS).unref();
  }

  /** Closes every idle connection (at shutdown). */
  close(): void {
    for (const idle of this.#idle.values()) for (const upstream of idle) upstream.socket.destroy();
    this.#idle.clear();
    if (this.#sweeper !== null) clearInterval(this.#sweeper);
    this.#sweeper = null;
  }

  /** Closes the connections idle for longer than IDLE_MS; stops when none is left. */
  #sweep(now: number): void {
    for (const [key, idle] of this.#idle) {
      // Oldest first: the pool hands out the most recently idle ones.
      while (idle.length > 0 && now - idle[0]!.idleSince > IDLE_MS) idle.shift()!.socket.destroy();
      // Emptied here or by takeIdle: gone, so that the sweeper stops once nothing is idle.
      if (idle.length === 0) this.#idle.delete(key);
    }
    if (this.#idle.size > 0 || this.#sweeper === null) return;
    clearInterval(this.#sweeper);
    this.#sweeper = null;
  }

  #remove(upstream: Upstream): void {
    const idle = this.#idle.get(upstream.key);
    const at = idle?.indexOf(upstream) ?? -1;
    if (at === -1) return;
    idle!.splice(at, 1);
    if (idle!.length === 0) this.#idle.delete(upstream.key);
  }
}

function poolKey(vm: VmRecord, port: number): string {
  return `${vm.id}:${port}`;
}
