// Failed token verifications per client address (SPEC §7): charged to the failing client, never
// to a valid token. Used by token-auth.ts; the 429's pause is hold-back.ts's.
import type { ExectlError } from '../../errors.js';
import { RateLimiter, rateLimited, type RateLimit } from '../rules/rate-limit.js';
import { clientKeyOf } from '../rules/client-address.js';
import { VerificationTurns, type WaitingConnection } from './verification-turns.js';

/**
 * Failed verifications one client address may make while rate limiting is on: a burst of 60,
 * then one a second. Fixed rather than `--rate-limit`'s size, so that a strict per-key limit
 * (`1/1h`) does not lock an address out for a single typo.
 */
export const FAILURES_PER_ADDRESS: RateLimit = { capacity: 60, refillMs: 60_000 };

/**
 * The connection a request came on (an HTTP request's `req.socket`): its client address, which
 * failed verifications are charged to, and the connection itself, which is remembered once it
 * failed past its address's budget.
 */
export interface ClientConnection {
  readonly remoteAddress?: string | undefined;
}

/** The 429s of addresses out of failed verifications (see {@link refusedForFailures}). */
const failureRefusals = new WeakSet<object>();

/**
 * Whether `err` is the 429 of a client address that used up its failed verifications: the
 * front end then also stops reading that connection for a while (see hold-back.ts).
 */
export function refusedForFailures(err: unknown): boolean {
  return typeof err === 'object' && err !== null && failureRefusals.has(err);
}

/** The 429 of an address out of failed verifications; it ends the failing connection. */
function failureRefusal(retryAfterSeconds: number): ExectlError {
  const err = rateLimited(retryAfterSeconds);
  err.headers['Connection'] = 'close';
  failureRefusals.add(err);
  return err;
}

/**
 * Each address's bucket of failed verifications ({@link FAILURES_PER_ADDRESS}), charged and
 * asked only when a token FAILS; the connections that failed past it; and the pace of the
 * signature checks of addresses out of failures (verification-turns.ts).
 */
export class FailuresByAddress {
  readonly #buckets: RateLimiter;
  readonly #refusedConnections = new WeakSet<ClientConnection>();
  readonly #turns: VerificationTurns;

  constructor(rate: RateLimit, nowMs: () => number) {
    this.#buckets = new RateLimiter(rate, nowMs);
    this.#turns = new VerificationTurns(nowMs);
  }

  /**
   * Throws the address's 429 for a connection that failed past its budget while the address
   * has none left: what it pipelined behind that failure (whose answer closes it) costs no
   * verification.
   */
  refuseIfRefusedBefore(connection: ClientConnection): void {
    if (!this.#refusedConnections.has(connection)) return;
    const decision = this.#buckets.peek(clientKeyOf(connection));
    if (!decision.allowed) throw failureRefusal(decision.retryAfterSeconds);
  }

  /** Charges one failed verification to `connection`'s address; past its budget, throws 429. */
  charge(connection: ClientConnection): void {
    const decision = this.#buckets.take(clientKeyOf(connection));
    if (decision.allowed) return;
    this.#refusedConnections.add(connection);
    throw failureRefusal(decision.retryAfterSeconds);
  }

  /** Whether `connection`'s address has used up its failed verifications. */
  isOut(connection: ClientConnection): boolean {
    return !this.#buckets.peek(clientKeyOf(connection)).allowed;
  }

  /** `connection`'s turn for a signature check (see VerificationTurns.turn); null: at once. */
  turn(connection: ClientConnection & WaitingConnection): Promise<void> | null {
    const address = clientKeyOf(connection);
    return this.#turns.turn(address, connection, () => failureRefusal(1));
  }
}
