// Idle connections must not exhaust the server's descriptors (SPEC §7): each listener holds at
// most so many connections per client address and in all, and closes the excess at once.
import { readFileSync } from 'node:fs';
import type { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { LogSink } from '../config.js';
import { accountKeyOf, clientKeyOf } from '../rules/client-address.js';

/** The limits on one listener's connections (config.ts's `connections`). */
export interface ConnectionLimits {
  /** Open connections one client address may hold (see client-address.ts for "address"). */
  perAddress: number;
  /** Open connections in all. */
  total: number;
  /**
   * Open connections all VMs of one account may hold together, besides each VM's own
   * `perAddress` (SPEC §7): one tenant's VMs never fill `total`. Absent: a quarter of `total`
   * (1024 of 4096), at least `perAddress`.
   */
  perAccount?: number;
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

/** The cap on one account's VMs' connections together: `perAccount`, else its default. */
export function perAccountCap(
  limits: Pick<ConnectionLimits, 'perAddress' | 'total' | 'perAccount'>,
) {
  return limits.perAccount ?? Math.max(limits.perAddress, Math.floor(limits.total / 4));
}

/** The open connections of one listener, by client address, by account (VMs'), and in all. */
export class ConnectionCounts {
  readonly #perAddress: number;
  readonly #perAccount: number;
  readonly #totalCap: number;
  readonly #byAddress = new Map<string, number>();
  readonly #byAccount = new Map<string, number>();
  #total = 0;

  constructor(limits: Pick<ConnectionLimits, 'perAddress' | 'total' | 'perAccount'>) {
    this.#perAddress = limits.perAddress;
    this.#perAccount = perAccountCap(limits);
    this.#totalCap = limits.total;
  }

  get total(): number {
    return this.#total;
  }

  /**
   * Counts one more connection from `address` (of the account `account`, for a VM's), or says
   * no when a cap is reached.
   */
  admit(address: string, account?: string): boolean {
    const open = this.#byAddress.get(address) ?? 0;
    const ofAccount = account === undefined ? 0 : (this.#byAccount.get(account) ?? 0);
    if (open >= this.#perAddress || this.#total >= this.#totalCap) return false;
    if (account !== undefined && ofAccount >= this.#perAccount) return false;
    this.#byAddress.set(address, open + 1);
    if (account !== undefined) this.#byAccount.set(account, ofAccount + 1);
    this.#total++;
    return true;
  }

  /** Forgets one connection of `address` (and `account`), admitted before. */
  release(address: string, account?: string): void {
    forgetOne(this.#byAddress, address);
    if (account !== undefined) forgetOne(this.#byAccount, account);
    this.#total--;
  }
}

// Keys without connections are forgotten: a map holds only open ones.
function forgetOne(counts: Map<string, number>, key: string): void {
  const open = counts.get(key) ?? 0;
  if (open <= 1) counts.delete(key);
  else counts.set(key, open - 1);
}

/** At most one warning per listener in this time, however many connections are refused. */
const WARN_EVERY_MS = 60_000;

/**
 * Caps the connections `server` takes ('connection' events: accepted TCP sockets, and the ones
 * machine VMs open inside their own network, handed over, each counted under its VM's key and its account's).
 * Node's `maxConnections` would count only the former, and nothing in Node counts per address. A connection past a cap is destroyed before the HTTP parser (or TLS)
 * sees a byte, so it costs nothing more, and other addresses are not affected; the refusals
 * are logged as one warning a minute.
 */
export function capConnections(
  server: EventEmitter,
  limits: Pick<ConnectionLimits, 'perAddress' | 'total' | 'perAccount'>,
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
    const account = accountKeyOf(socket);
    if (counts.admit(address, account)) {
      socket.once('close', () => counts.release(address, account));
      return;
    }
    socket.destroy();
    refused++;
    if (Date.now() - warnedAt < WARN_EVERY_MS) return;
    warnedAt = Date.now();
    log(
      `${name}: refused ${refused} connection(s) past the caps (${limits.perAddress} per address, ` +
        `${perAccountCap(limits)} per account's VMs, ${limits.total} in all; last from ${address})`,
      'warn',
    );
    refused = 0;
  });
}
