import type { Socket } from 'node:net';
import type { Connection } from 'ssh2';

/**
 * Bytes waiting in a connection's socket past which the connection stops reading and its
 * channels' writers wait: about 30 full SSH packets, far more than a client that reads keeps
 * unread, far less than what a client that never reads could otherwise make the server hold.
 */
export const SOCKET_BACKLOG_MARK = 1024 * 1024;

/**
 * The output waiting in one client connection's socket for the client to read it. ssh2 writes
 * to the socket without looking, and a channel takes all the client's window allows: a client
 * that keeps opening its window (SSH window adjusts) and never reads its socket would make the
 * server queue output without end. So, while more than the mark waits:
 * - the socket is not read, so nothing the client sends takes effect (no input, no window
 *   adjust, no new command), until it has read its way back under the mark;
 * - writers wait ({@link SocketBacklog.belowMark}), so commands and echo stop making output.
 * A client that reads slowly is only slowed down; ssh2's keepalive (a ping every 15 s, cut
 * after 3 unanswered) ends a connection whose client reads nothing for about a minute, since
 * its answers are not read either.
 *
 * During a key exchange ssh2 holds outgoing packets in memory instead of the socket, so a
 * client that starts one and never finishes it would have output pile up there: those count
 * for writers too. They do not stop reading: the exchange can only finish, and release them,
 * if the client's next messages are read.
 */
export class SocketBacklog {
  readonly #socket: Socket;
  readonly #mark: number;
  #protocol: HoldingProtocol | undefined;
  #readingPaused = false;
  #waiting: Array<() => void> = [];

  /** Watches `socket`; call once the SSH server took the socket (it pauses and resumes it first). */
  constructor(socket: Socket, mark = SOCKET_BACKLOG_MARK) {
    this.#socket = socket;
    this.#mark = mark;
    // Checked as each read arrives, before ssh2 parses it: one read (at most 64 KiB) still
    // takes effect, the next waits in the kernel and makes the client's writes wait.
    socket.prependListener('data', () => {
      if (this.#socketBacklog() <= this.#mark || this.#readingPaused) return;
      this.#readingPaused = true;
      socket.pause();
    });
    // 'drain': the socket's buffer is empty again (it was over its own, smaller mark).
    socket.on('drain', () => this.#relieved());
    socket.once('close', () => this.#relieved());
  }

  /** Also counts what the SSH connection made of the socket holds back during key exchanges. */
  watch(connection: Connection): void {
    this.#protocol = (connection as unknown as { _protocol: HoldingProtocol })._protocol;
    // The exchange is over: what it held back went to the socket, which may take it.
    connection.on('handshake', () => this.#relieved());
  }

  /** True while more than the mark waits to be read by the client. */
  get over(): boolean {
    return this.#socketBacklog() + this.#heldBack() > this.#mark;
  }

  #socketBacklog(): number {
    return this.#socket.destroyed ? 0 : this.#socket.writableLength;
  }

  #heldBack(): number {
    if (this.#socket.destroyed) return 0;
    let bytes = 0;
    for (const packet of this.#protocol?._queue ?? []) bytes += packet.length;
    return bytes;
  }

  /** Undefined when under the mark; else a promise that settles once under it or closed. */
  belowMark(): Promise<void> | undefined {
    if (!this.over) return undefined;
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #relieved(): void {
    if (this.#readingPaused && this.#socketBacklog() <= this.#mark) {
      this.#readingPaused = false;
      if (!this.#socket.destroyed) this.#socket.resume();
    }
    if (this.over) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}

/** ssh2's protocol object (not in its types): packets held back during a key exchange. */
interface HoldingProtocol {
  _queue?: Uint8Array[];
}
