// The pace of signature checks for a client address out of failed verifications (token-auth.ts).
// A valid token from it must still pass (SPEC §7), so its tokens are still verified, but at most
// TURNS_PER_SECOND a second for that address, in the order they came: a flood of costly checks
// (an ECDSA P-521 one takes milliseconds) then costs a bounded share of the event loop, and a
// valid token waits behind at most one request per connection its address holds.
import { RateLimiter } from '../rules/rate-limit.js';

/** Signature checks per second for one address out of failed verifications. */
export const TURNS_PER_SECOND = 10;

/** A request's connection, as far as waiting for a turn needs it (an HTTP `req.socket`). */
export interface WaitingConnection {
  once(event: 'close', listener: () => void): unknown;
  removeListener(event: 'close', listener: () => void): unknown;
}

interface Waiter {
  connection: WaitingConnection;
  go(): void;
}

/** Turns to verify, per client address, at {@link TURNS_PER_SECOND}. */
export class VerificationTurns {
  readonly #pace: RateLimiter;
  readonly #gapMs = 1_000 / TURNS_PER_SECOND;
  /** Requests waiting for a turn, per address, first come first served. */
  readonly #queues = new Map<string, Waiter[]>();
  readonly #waitingOn = new WeakSet<WaitingConnection>();

  constructor(now: () => number = Date.now) {
    this.#pace = new RateLimiter({ capacity: TURNS_PER_SECOND, refillMs: 1_000 }, now);
  }

  /**
   * Null when a request of `address` may verify at once (its turn taken); otherwise a promise
   * that resolves at its turn. It rejects with `refusal()` when `connection` already waits for
   * a turn (a request pipelined behind it), or closes while waiting.
   */
  turn(address: string, connection: WaitingConnection, refusal: () => Error): Promise<void> | null {
    const queue = this.#queues.get(address);
    if (queue === undefined && this.#pace.take(address).allowed) return null;
    if (this.#waitingOn.has(connection)) return Promise.reject(refusal());
    return new Promise((resolve, reject) => {
      const left = () => {
        this.#waitingOn.delete(connection);
        const waiting = this.#queues.get(address) ?? [];
        const at = waiting.indexOf(waiter);
        if (at >= 0) waiting.splice(at, 1);
        reject(refusal());
      };
      const waiter: Waiter = {
        connection,
        go: () => {
          this.#waitingOn.delete(connection);
          connection.removeListener('close', left);
          resolve();
        },
      };
      this.#waitingOn.add(connection);
      connection.once('close', left);
      if (queue !== undefined) queue.push(waiter);
      else {
        this.#queues.set(address, [waiter]);
        this.#next(address);
      }
    });
  }

  /** Gives the next turns of `address` as its pace allows, until nobody waits. */
  #next(address: string): void {
    setTimeout(() => {
      const queue = this.#queues.get(address)!;
      while (queue.length > 0 && this.#pace.take(address).allowed) queue.shift()!.go();
      if (queue.length === 0) this.#queues.delete(address);
      else this.#next(address);
    }, this.#gapMs);
  }
}
