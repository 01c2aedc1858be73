import type { Database, Statement } from 'better-sqlite3';

/** How many lookups a {@link ReadCache} remembers by default before it starts over. */
export const READ_CACHE_LIMIT = 10_000;

/**
 * Remembers the results of a few hot-path reads (raw rows, keyed by the caller) for as long as
 * the database has not changed, so that authenticating a request does not query SQLite again
 * and again for the same key and account.
 *
 * Why it never serves stale data — the invalidation rules:
 * - Another connection's commit changes `PRAGMA data_version` as this connection sees it.
 *   While a server runs, no other exectl process writes its data folder (the folder's lock
 *   refuses offline commands), so this guards only against writers outside exectl. Reading
 *   that number takes SQLite's WAL read lock (two fcntl calls), as costly as the query it
 *   would save, so it is read once per event-loop turn, by the turn's first lookup (about 6 %
 *   of an /exec request's time when it was read per request). When the number moved,
 *   everything is forgotten.
 * - The number is read *before* a miss is loaded, so a value is only ever filed under a version
 *   at most as new as the data it came from: a commit that lands between the two reads makes
 *   the next check start over.
 * - This connection's own commits do not change `data_version`, so every write of the store
 *   goes through `writeTransaction` (context.ts), which calls {@link forget} once the
 *   transaction has finished, committed or not. Those are seen at once.
 * - Inside a transaction nothing is read from or written to the cache: the transaction must see
 *   its own uncommitted writes, and a value it read may be rolled back.
 *
 * A miss (`undefined`) is remembered like any value, so a flood of unknown fingerprints costs one
 * query each only once; the number of entries is bounded, and reaching the bound forgets
 * everything (simple, and no worse than an empty cache).
 */
export class ReadCache {
  readonly #db: Database;
  readonly #dataVersion: Statement<[], number>;
  readonly #limit: number;
  readonly #entries = new Map<string, unknown>();
  /** The `data_version` the entries were loaded under; undefined before the first lookup. */
  #version: number | undefined;
  /** `data_version` was read in the current event-loop turn. */
  #checkedThisTurn = false;
  /** Moves whenever the data may have changed: see {@link generation}. */
  #generation = 0;

  /**
   * @param db the store's connection; the cache must only hold reads made through it.
   * @param limit most entries kept at once (default {@link READ_CACHE_LIMIT}).
   */
  constructor(db: Database, limit: number = READ_CACHE_LIMIT) {
    this.#db = db;
    this.#dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.#limit = limit;
  }

  /**
   * The value remembered for `key` while the database is unchanged, else `load()`'s result
   * (remembered for next time). Inside a transaction it is always `load()`, never remembered.
   * Callers must not mutate what they get: the same value is handed out again.
   */
  get<T>(key: string, load: () => T): T {
    if (this.#db.inTransaction) return load();
    if (!this.#checkedThisTurn) this.#checkNow();
    if (this.#entries.has(key)) return this.#entries.get(key) as T;
    const value = load();
    if (this.#entries.size >= this.#limit) this.#entries.clear();
    this.#entries.set(key, value);
    return value;
  }

  // Reads `data_version` now: the next lookups see every commit other connections made before.
  #checkNow(): void {
    if (this.#db.inTransaction) return;
    const version = this.#dataVersion.get()!;
    if (version !== this.#version) {
      this.#entries.clear();
      this.#version = version;
      this.#generation++;
    }
    if (this.#checkedThisTurn) return;
    this.#checkedThisTurn = true;
    // Runs after this turn's callbacks and microtasks, before the next turn's I/O callbacks.
    setImmediate(() => {
      this.#checkedThisTurn = false;
    }).unref();
  }

  /** Drops every entry. Every own write calls it (through `writeTransaction`). */
  forget(): void {
    this.#entries.clear();
    this.#generation++;
  }

  /**
   * A number that moves whenever the data may have changed, by the rules above (an own write,
   * another connection's commit seen this turn): whatever was worked out from reads under one
   * value still holds while it is the same. Inside a transaction it moves on every call.
   */
  generation(): number {
    if (this.#db.inTransaction) return ++this.#generation;
    if (!this.#checkedThisTurn) this.#checkNow();
    return this.#generation;
  }

  /** How many lookups are remembered now (for tests and diagnostics). */
  get size(): number {
    return this.#entries.size;
  }
}
