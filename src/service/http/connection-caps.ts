// Idle connections must not exhaust the server's descriptors (SPEC §7): each listener holds at
// most so many connections per client address and in all, and closes the excess at once.
import { readFileSync } from 'node:fs';
import type { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { LogSink } from '../config.js';
import { clientKeyOf } from '../rules/client-address.js';

/** The limits on one listener's connections (config.ts's `connections`). */
export interface ConnectionLimits {
  /** Open connections one client address may hold (see client-address.ts for "address"). */
  perAddress: number;
  /** Open connections in all. */
  total: number;
  /**
   * From a connection's first moment (and from the first byte of each later request on it)
   * until its request's headers have all arrived; then it is answered 408 and closed.
   */
  headersTimeoutMs: number;
  /** How long a connection may sit idle between two requests. */
  keepAliveTimeoutMs: number;
}

/**
 * The limits for a process that may open `openFiles` descriptors (its RLIMIT_NOFILE): a quarter
 * of them for one listener, at most 4096 (the HTTP and the reflection listener each have theirs,
 * and SQLite, the SSH front end and the VMs' helpers need the rest), a sixteenth of that per
 * address (256 from 16384 descriptors up: far more than any real client opens), 10 s for a
 * request's headers, 5 s of idle keep-alive.
 */
export function defaultConnectionLimits(openFiles: number): ConnectionLimits {
  const total = Math.max(16, Math.min(4096, Math.floor(openFiles / 4)));
  return {
    total,
    perAddress: Math.max(2, Math.floor(total / 16)),
    headersTimeoutMs: 10_000,
    keepAliveTimeoutMs: 5_000,
  };
}

/**
 * This process's soft RLIMIT_NOFILE (Node raises it to the hard limit at start), from
 * /proc/self/limits; 1024, the usual soft limit, where that cannot be read.
 */
export function openFileLimit(): number {
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(
      readFileSync('/proc/self/limits', 'utf8'),
    );
    if (line === null) return 1024;
    return line[1] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(line[1]);
  } catch {
    return 1024;
  }
}

/** The open connections of one listener, by client address and in all. */
export class ConnectionCounts {
  readonly #limits: Pick<ConnectionLimits, 'perAddress' | 'total'>;
  readonly #byAddress = new Map<string, number>();
  #total = 0;

  constructor(limits: Pick<ConnectionLimits, 'perAddress' | 'total'>) {
    this.#limits = limits;
  }

  get total(): number {
    return this.#total;
  }

  /** Counts one more connection from `address`, or says no when a cap is reached. */
  admit(address: string): boolean {
    const open = this.#byAddress.get(address) ?? 0;
    if (open >= this.#limits.perAddress || this.#total >= this.#limits.total) return false;
    this.#byAddress.set(address, open + 1);
    this.#total++;
    return true;
  }

  /** Forgets one connection of `address` (admitted before). */
  release(address: string): void {
    const open = this.#byAddress.get(address) ?? 0;
    // Addresses without connections are forgotten: the map holds only open ones.
    if (open <= 1) this.#byAddress.delete(address);
    else this.#byAddress.set(address, open - 1);
    this.#total--;
  }
}

/** At most one warning per listener in this time, however many connections are refused. */
const WARN_EVERY_MS = 60_000;

/**
 * Caps the connections `server` takes ('connection' events: accepted TCP sockets, and the ones
 * machine VMs open inside their own network, handed over, each counted under its VM's key).
 * Node's `maxConnections` would count only the former, and nothing in Node counts per address. A connection past a cap is destroyed before the HTTP parser (or TLS)
 * sees a byte, so it costs nothing more, and other addresses are not affected; the refusals
 * are logged as one warning a minute.
 */
export function capConnections(
  server: EventEmitter,
  limits: Pick<ConnectionLimits, 'perAddress' | 'total'>,
  name: string,
  log: LogSink,
): void {
  const counts = new ConnectionCounts(limits);
  let refused = 0;
  let warnedAt = -Infinity;
  // First among the listeners: the HTTP (or TLS) server's own one runs after, on a socket that
  // is then already destroyed, which it handles like any connection closed at once.
  server.prependListener('connection', (socket: Socket) => {
    const address = clientKeyOf(socket);
    if (counts.admit(address)) {
      socket.once('close', () => counts.release(address));
      return;
    }
    socket.destroy();
    refused++;
    if (Date.now() - warnedAt < WARN_EVERY_MS) return;
    warnedAt = Date.now();
    log(
      `${name}: refused ${refused} connection(s) past the caps (${limits.perAddress} per address, ` +
        `${limits.total} in all; last from ${address})`,
      'warn',
    );
    refused = 0;
  });
}
