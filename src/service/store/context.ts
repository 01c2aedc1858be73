import type { Database } from 'better-sqlite3';

/** What every table family is built from: the open connection and the store's clock. */
export interface StoreContext {
  readonly db: Database;
  /** The current time as the store writes it (see {@link toTimestamp}). */
  timestamp(): string;
}

/**
 * Every time the store writes is an RFC 3339 UTC string with whole seconds, e.g.
 * `2025-01-02T03:04:05Z` — the form the commands print, so rows need no conversion. Strings in
 * this one shape also sort chronologically, which the key-use buffer relies on.
 */
export function toTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Wraps `fn` in a `BEGIN IMMEDIATE` transaction (a savepoint when already inside one). Every
 * multi-statement write uses this: taking the write lock up front means a read-then-write never
 * has to upgrade its lock, which under WAL fails at once with SQLITE_BUSY when another process
 * committed in between, instead of waiting for the busy timeout.
 */
export function writeTransaction<A extends unknown[], R>(
  db: Database,
  fn: (...args: A) => R,
): (...args: A) => R {
  return db.transaction(fn).immediate;
}
