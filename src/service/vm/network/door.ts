// The door into one machine VM's network namespace (SPEC §4, §6): sockets made inside it and
// handed to the server, which then uses them itself. A connection into the VM (the proxy,
// `ssh -L`) and the listeners the VM sees at the server's host addresses are made this way, so
// no relay process sits on any data path. The sockets are made by a small node helper
// (scripts/netns-door.cjs) that joins the namespace only, started when a socket is asked for
// and ended once it has been idle a moment: an idle VM keeps no door process. At boot a perl
// prelude (scripts/netns-listen.pl) makes the VM's listeners before node has started.
import { closeSync } from 'node:fs';
import { Server, Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { DEFAULT_PATH, spawnHost, type ChildProcess } from '../process/index.js';
import { scriptText } from '../scripts/index.js';

/** How long the helper waits for the next ask once it answered the last one. */
const IDLE_MS = 3_000;
/** How long an ask may take (the helper's start included) on a busy host. */
const ASK_TIMEOUT_MS = 15_000;

type Answer = { id: number; error?: string };
/** An ask waiting for its answer from the helper it was sent to. */
type Waiter = { helper: ChildProcess; settle(answer: Answer, handle: unknown): void };

/** A connection or listener the helper could not make: `code` is its errno name. */
function doorError(code: string, what: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`${what} inside the VM: ${code}`);
  err.code = code;
  return err;
}

/** How a door's helper is started. */
export interface DoorOptions {
  /** How long an ask may take before it fails with `ETIMEDOUT` (shorter in tests). */
  askTimeoutMs?: number;
  /**
   * The words the helper's command line starts with: the VM's `joinCgroupsFirst`, so that the
   * helper (its memory, its CPU) counts against the VM's own limits, not the server's.
   */
  startIn?: readonly string[];
}

export class NetnsDoor {
  private readonly askTimeoutMs: number;
  private readonly startIn: readonly string[];
  private helper: ChildProcess | null = null;
  private readonly waiting = new Map<number, Waiter>();
  private nextId = 1;
  private idle: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly nsenter: string,
    private readonly perl: string,
    /**
     * An open descriptor of the VM's network namespace (`/proc/<pid>/ns/net`), opened while
     * that pid was surely the VM's: a pid reused later can never lead the door elsewhere.
     * Closed by {@link close}.
     */
    private readonly netns: number,
    options: DoorOptions = {},
  ) {
    this.askTimeoutMs = options.askTimeoutMs ?? ASK_TIMEOUT_MS;
    this.startIn = options.startIn ?? [];
  }

  /** A TCP connection to `port` on the VM's own loopback (`ECONNREFUSED` when nothing listens). */
  connect(port: number): Promise<Socket> {
    return this.ask({ op: 'connect', port }, `connecting to port ${port}`) as Promise<Socket>;
  }

  /** A socket listening at `host:port` inside the VM, accepted on by the caller. */
  listen(host: string, port: number): Promise<Server> {
    return this.ask(
      { op: 'listen', host, port },
      `listening on ${host}:${port}`,
    ) as Promise<Server>;
  }

  /**
   * Starts the helper with `listeners` listening inside at once: scripts/netns-listen.pl makes
   * them in a few milliseconds, then becomes the node helper, which hands each over when
   * {@link listen} asks for it. The VM may connect to them meanwhile (its connection waits in
   * the backlog). Resolves with which could be made now: an IPv6 loopback address cannot before
   * the namespace's loopback is up, and none can when the helper is already running.
   */
  async prepare(listeners: readonly { host: string; port: number }[]): Promise<boolean[]> {
    if (this.helper !== null || this.closed || listeners.length === 0) {
      return listeners.map(() => false);
    }
    const line = await firstLine(this.startHelper(listeners).stdout!, this.askTimeoutMs);
    const words = line.split(' ');
    return listeners.map((_, i) => /^\d+$/.test(words[i] ?? ''));
  }

  /** Ends the helper now unless it has asks to answer (no more are expected soon). */
  rest(): void {
    if (this.waiting.size === 0) this.endHelper();
  }

  /** Ends the helper and lets go of the namespace; later asks reject. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.endHelper();
    closeSync(this.netns);
  }

  private ask(message: Record<string, unknown>, what: string): Promise<unknown> {
    if (this.closed) return Promise.reject(doorError('ESHUTDOWN', what));
    const helper = this.helper ?? this.startHelper();
    clearTimeout(this.idle);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => settle({ id, error: 'ETIMEDOUT' }, undefined),
        this.askTimeoutMs,
      );
      const settle = (answer: Answer, handle: unknown) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        if (this.waiting.size === 0) {
          this.idle = setTimeout(() => this.endHelper(), IDLE_MS).unref();
        }
        if (answer.error === undefined && handle !== undefined) resolve(handle);
        else reject(doorError(answer.error ?? 'EIO', what));
      };
      this.waiting.set(id, { helper, settle });
      helper.send({ ...message, id }, (err: Error | null) => {
        if (err !== null) settle({ id, error: 'EPIPE' }, undefined);
      });
    });
  }

  private startHelper(early: readonly { host: string; port: number }[] = []): ChildProcess {
    const node = [process.execPath, '-e', scriptText('netns-door.cjs')];
    const prelude =
      early.length === 0
        ? []
        : [
            this.perl,
            '-e',
            scriptText('netns-listen.pl'),
            ...early.flatMap(({ host, port }) => [host, String(port)]),
            '--',
          ];
    // fd 4 of nsenter is the namespace (a shell before it hands it down as it is); the helper
    // inherits it too, which changes nothing.
    const [command, ...args] = [
      ...this.startIn,
      this.nsenter,
      '--net=/proc/self/fd/4',
      '--',
      ...prelude,
      ...node,
    ];
    const helper = spawnHost(command!, args, {
      env: { PATH: DEFAULT_PATH },
      stdio: ['ignore', early.length === 0 ? 'ignore' : 'pipe', 'ignore', 'ipc', this.netns],
    });
    helper.on('message', (answer: Answer, handle: unknown) => {
      const waiter = this.waiting.get(answer.id);
      if (waiter?.helper === helper) return waiter.settle(answer, handle);
      // An answer after its ask timed out (a connect the VM held back): nobody takes the
      // socket, so it is let go here, or each one would hold a descriptor of the server.
      letGo(handle);
    });
    // A helper that could not start or died fails what it was asked (and nothing asked of the
    // one started after it); the next ask starts another.
    const gone = () => {
      if (this.helper === helper) this.helper = null;
      for (const [id, waiter] of [...this.waiting]) {
        if (waiter.helper === helper) waiter.settle({ id, error: 'EPIPE' }, undefined);
      }
    };
    helper.once('error', gone);
    helper.once('exit', gone);
    this.helper = helper;
    return helper;
  }

  private endHelper(): void {
    clearTimeout(this.idle);
    const helper = this.helper;
    this.helper = null;
    if (helper === null) return;
    // Closing the channel ends it (netns-door.cjs); a kill too, should it hang.
    if (helper.connected) helper.disconnect();
    helper.kill('SIGKILL');
  }
}

/** Closes a socket or listener the helper handed over that no ask takes. */
function letGo(handle: unknown): void {
  if (handle instanceof Socket) handle.destroy();
  else if (handle instanceof Server) handle.close();
}

/** The first line `stream` gives ('' when it ends or `timeoutMs` passes first). */
function firstLine(stream: Readable, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const done = () => {
      clearTimeout(timer);
      stream.removeListener('data', onData);
      stream.removeListener('end', done);
      stream.resume();
      resolve(text.split('\n')[0]!);
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\n')) done();
    };
    const timer = setTimeout(done, timeoutMs);
    stream.on('data', onData);
    stream.once('end', done);
  });
}
