import type { Database } from 'better-sqlite3';
import type { ReadCache } from './read-cache.js';
import { rfc3339 } from '../../time.js';

/**
 * What every table family is built from: the open connection, the store's clock and its read
 * cache. Every write through `db` must go through {@link writeTransaction}: that is what keeps
 * `reads` honest, because the connection's own commits are invisible to the cache's change check.
 */
export interface StoreContext {
  readonly db: Database;
  /** The current time as the store writes it (see {@link toTimestamp}). */
  timestamp(): string;
  /** The few hot-path lookups served from memory while the database is unchanged. */
  readonly reads: ReadCache;
}

/**
 * Every time the store writes is an RFC 3339 UTC string with whole seconds (src/time.ts), the
 * form the commands print, so rows need no conversion. Strings in this one shape also sort
 * chronologically, which the key-use buffer relies on.
 */
export function toTimestamp(date: Date): string {
  return rfc3339(date.getTime() / 1000);
}

/**
 * `toTimestamp(now())`, formatted once per second: every authenticated request takes the time
 * for its key's last use, and formatting it each time is a visible share of a request's cost.
 */
export function timestampClock(now: () => Date): () => string {
  let second = NaN;
  let text = '';
  return () => {
    const date = now();
    const current = Math.floor(date.getTime() / 1000);
    if (current !== second) {
      second = current;
      text = toTimestamp(date);
    }
    return text;
  };
}

/**
 * Wraps `fn` in a `BEGIN IMMEDIATE` transaction (a savepoint when already inside one). Every
 * write of the store goes through this, even a single statement:
 * - taking the write lock up front means a read-then-write never has to upgrade its lock, which
 *   under WAL fails at once with SQLITE_BUSY when another process committed in between, instead
 *   of waiting for the busy timeout;
 * - once the transaction has finished, committed or thrown, it empties the read cache
 *   (`ctx.reads`), which cannot notice this connection's own commits by itself. A write that
 *   bypasses this function would leave the cache serving what the write replaced.
 */
export function writeTransaction<A extends unknown[], R>(
  ctx: StoreContext,
  fn: (...args: A) => R,
): (...args: A) => R {
  const run = ctx.db.transaction(fn).immediate;
  return (...args: A): R => {
    try {
      return run(...args);
    } finally {
      ctx.reads.forget();
    }
  };
}
