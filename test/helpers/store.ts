// The one store fixture: a real SQLite file in a fresh temp dir, a clock the test moves, and a
// second, independent connection for looking at what is really on disk.
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { createTempDir, type TempDir } from './tmp.js';
import { suiteFixture } from './suite-fixture.js';
import {
  openStore,
  type NewSshKey,
  type Store,
  type StoreOptions,
} from '../../src/service/store/index.js';

/** The instant every fixture clock starts at. */
export const T0 = '2025-03-01T12:00:00Z';

export class TestClock {
  private ms = Date.parse(T0);
  now = (): Date => new Date(this.ms);
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
  /** The current time as the store writes it. */
  get iso(): string {
    return new Date(this.ms).toISOString().replace('.000Z', 'Z');
  }
}

export interface StoreFixture {
  dir: TempDir;
  dbPath: string;
  clock: TestClock;
  /** The store under test (replaced by `reopen`). */
  store: Store;
  /** Closes the store and opens the same file again. */
  reopen(): Store;
  /** A separate read-only connection to the file: what another process would see. */
  peek(): Database.Database;
  /** Closes everything and removes the temp dir. */
  cleanup(): Promise<void>;
}

/**
 * The store of the file or `describe` block it is called in (at its top level): opened before
 * its tests, closed and removed after them, with no hook of the caller's.
 */
export function useTestStore(options: Omit<StoreOptions, 'now'> = {}): StoreFixture {
  return suiteFixture(
    () => openFixture(options),
    (fixture) => fixture.cleanup(),
  );
}

/** A store for one test or hook; its `cleanup` is the caller's (see {@link useTestStore}). */
export async function openFixture(options: Omit<StoreOptions, 'now'> = {}): Promise<StoreFixture> {
  const dir = await createTempDir('store');
  const dbPath = dir.join('exectl.db');
  const clock = new TestClock();
  const peeks: Database.Database[] = [];
  const fixture: StoreFixture = {
    dir,
    dbPath,
    clock,
    store: openStore(dbPath, { ...options, now: clock.now }),
    reopen() {
      fixture.store.close();
      fixture.store = openStore(dbPath, { ...options, now: clock.now });
      return fixture.store;
    },
    peek() {
      const db = new Database(dbPath, { readonly: true });
      peeks.push(db);
      return db;
    },
    async cleanup() {
      fixture.store.close();
      for (const db of peeks) db.close();
      await dir.remove();
    },
  };
  return fixture;
}

/** A realistic key record for `accountId`; `seed` makes fingerprint and key text unique. */
export function fakeKey(accountId: number, seed: string, name = seed): NewSshKey {
  const digest = createHash('sha256').update(seed).digest('base64').replace(/=+$/, '');
  const blob = Buffer.from(`ssh-ed25519 key ${seed}`).toString('base64');
  return {
    accountId,
    name,
    fingerprint: `SHA256:${digest}`,
    publicKey: `ssh-ed25519 ${blob} ${seed}@host`,
    keyType: 'ssh-ed25519',
  };
}

/** Row count of `table` as seen by an independent connection. */
export function countRows(db: Database.Database, table: string): number {
  return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
}
