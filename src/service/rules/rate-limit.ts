import { parseDurationMs } from '../../durations.js';
import { ExectlError } from '../../errors.js';

/**
 * Per-key token buckets (SPEC §2): each key holds at most `capacity` requests and regains
 * `capacity` over `refillMs`, continuously. A bucket that has refilled completely is forgotten,
 * so memory is bounded by the keys active within one refill period.
 */
export interface RateLimit {
  capacity: number;
  refillMs: number;
}

type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class RateLimiter {
  readonly #limit: RateLimit;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();
  #lastSweep = 0;

  constructor(limit: RateLimit, now: () => number = Date.now) {
    this.#limit = limit;
    this.#now = now;
  }

  /** Takes one request from `key`'s bucket, or says how long until one would pass. */
  take(key: string): RateDecision {
    const now = this.#now();
    const refilled = this.#refilled(key, now);
    if (refilled >= 1) {
      this.#buckets.set(key, { tokens: refilled - 1, updatedAt: now });
      this.#sweep(now);
      return { allowed: true };
    }
    this.#buckets.set(key, { tokens: refilled, updatedAt: now });
    return this.#refusal(refilled);
  }

  /** Whether `key`'s bucket holds a request, without taking it. */
  peek(key: string): RateDecision {
    const refilled = this.#refilled(key, this.#now());
    return refilled >= 1 ? { allowed: true } : this.#refusal(refilled);
  }

  #refilled(key: string, now: number): number {
    const { capacity, refillMs } = this.#limit;
    const bucket = this.#buckets.get(key);
    if (bucket === undefined) return capacity;
    return Math.min(capacity, bucket.tokens + ((now - bucket.updatedAt) * capacity) / refillMs);
  }

  #refusal(refilled: number): RateDecision {
    const msUntilOne = ((1 - refilled) * this.#limit.refillMs) / this.#limit.capacity;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(msUntilOne / 1000)) };
  }

  /** Drops buckets that are full again; runs at most once per refill period. */
  #sweep(now: number): void {
    if (now - this.#lastSweep < this.#limit.refillMs) return;
    this.#lastSweep = now;
    for (const [key, bucket] of this.#buckets) {
      if (now - bucket.updatedAt >= this.#limit.refillMs) this.#buckets.delete(key);
    }
  }
}

/**
 * Takes one request from `key`'s bucket (no limiter: no limit), or throws SPEC §2's 429 with
 * its `Retry-After`. Shared by /exec, the SSH front end and the VM proxy: one bucket per key.
 */
export function takeOrRefuse(limiter: RateLimiter | null, key: string): void {
  const decision = limiter?.take(key);
  if (decision?.allowed === false) throw rateLimited(decision.retryAfterSeconds);
}

/** SPEC §2's 429 `rate limit exceeded`, with its `Retry-After`. */
export function rateLimited(retryAfterSeconds: number): ExectlError {
  return new ExectlError('rate_limited', 'rate limit exceeded', {
    headers: { 'Retry-After': String(retryAfterSeconds) },
    hint: `wait ${retryAfterSeconds}s before the next request`,
  });
}

/**
 * Parses `--rate-limit`: `N/DURATION` (e.g. `60/60s`, `10/1m`, `100/500ms`; the durations of
 * `exectl mint`) or `0` (disabled, returns null). Returns an error sentence instead of
 * throwing, for the config layer to report.
 */
export function parseRateLimit(text: string): RateLimit | null | { error: string } {
  if (text.trim() === '0') return null;
  const m = /^(\d+)\/(.+)$/.exec(text.trim());
  const refillMs = m === null ? undefined : parseDurationMs(m[2]!);
  if (m === null || refillMs === undefined) {
    return {
      error: `invalid rate limit "${text}": expected N/DURATION such as 60/60s, or 0`,
    };
  }
  const capacity = Number(m[1]);
  if (capacity === 0) {
    return {
      error: `invalid rate limit "${text}": a bucket of 0 refuses everything; use 0 alone to turn the limit off`,
    };
  }
  return { capacity, refillMs };
}
