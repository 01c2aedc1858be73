// The VM proxy's open connections, for what node:http does for its own: a head that takes too
// long is answered 408 and closed, an idle keep-alive connection closed, and at shutdown idle
// ones close at once and busy ones after their answer (or the grace time).
import type { ConnectionLimits } from '../http/connection-caps.js';
import { refusalBytes } from '../http/error-funnel.js';
import type { ProxyConnection } from './proxy-connection.js';

/** How often the timeouts are checked, as node:http's connectionsCheckingInterval here. */
const CHECK_MS = 1_000;

export class ProxyConnections {
  readonly #open = new Set<ProxyConnection>();
  readonly #limits: Pick<ConnectionLimits, 'headersTimeoutMs' | 'keepAliveTimeoutMs'>;
  #timer: NodeJS.Timeout | null = null;

  constructor(limits: Pick<ConnectionLimits, 'headersTimeoutMs' | 'keepAliveTimeoutMs'>) {
    this.#limits = limits;
  }

  add(connection: ProxyConnection): void {
    this.#open.add(connection);
    connection.socket.once('close', () => this.#open.delete(connection));
    this.#timer ??= setInterval(() => this.#check(Date.now()), CHECK_MS).unref();
  }

  delete(connection: ProxyConnection): void {
    this.#open.delete(connection);
  }

  /** Ends idle connections now and the others after their answer, or after `graceMs`. */
  closeAll(graceMs: number): void {
    for (const connection of this.#open) connection.wind();
    setTimeout(() => {
      for (const connection of this.#open) connection.socket.destroy();
    }, graceMs).unref();
  }

  /** Stops the timeout checks (at shutdown). */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  #check(now: number): void {
    for (const connection of this.#open) {
      const { headSince, idleSince, socket } = connection;
      if (idleSince !== null && now - idleSince > this.#limits.keepAliveTimeoutMs) {
        socket.destroy();
      } else if (headSince !== null && now - headSince > this.#limits.headersTimeoutMs) {
        socket.end(refusalBytes(408), 'latin1');
        socket.destroySoon();
        this.#open.delete(connection);
      }
    }
  }
}
