// ReadCache on its own, over a raw better-sqlite3 connection: what it remembers, when it
// forgets, that it reads through inside a transaction, and its bound.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { createTempDir, type TempDir } from '../../../helpers/tmp.js';
import { READ_CACHE_LIMIT, ReadCache } from '../../../../src/service/store/read-cache.js';

const cleanups: (() => unknown)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('ReadCache', () => {
  let dir: TempDir | undefined;

  /** A raw connection (WAL, like the store's) to a file with one row `x = 'committed'`. */
  async function kvDatabase(): Promise<{ db: Database.Database; value: (k: string) => unknown }> {
    if (dir === undefined) {
      dir = await createTempDir('read-cache');
      cleanups.push(() => dir!.remove());
    }
    const path = dir.join(`kv-${cleanups.length}.db`);
    const db = new Database(path);
    cleanups.push(() => db.close());
    db.pragma('journal_mode = WAL');
    db.exec(
      `CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT); INSERT INTO kv VALUES ('x', 'committed')`,
    );
    const select = db.prepare<[string], string>('SELECT v FROM kv WHERE k = ?').pluck();
    return { db, value: (k) => select.get(k) };
  }

  test('inside a transaction it reads through, so a rolled-back write is never served', async () => {
    const { db, value } = await kvDatabase();
    const cache = new ReadCache(db);
    const read = () => cache.get('x', () => value('x'));

    // Nothing cached yet: the uncommitted value must not be remembered.
    db.exec(`BEGIN IMMEDIATE; UPDATE kv SET v = 'rolled back' WHERE k = 'x'`);
    assert.equal(read(), 'rolled back');
    assert.equal(cache.size, 0);
    db.exec('ROLLBACK');
    assert.equal(read(), 'committed');

    // Now cached: the transaction must still see its own write, not the cached value.
    db.exec(`BEGIN IMMEDIATE; UPDATE kv SET v = 'rolled back' WHERE k = 'x'`);
    assert.equal(read(), 'rolled back');
    db.exec('ROLLBACK');
    assert.equal(read(), 'committed');
  });

  test('remembers values and misses until forget() or another connection’s commit', async () => {
    const { db, value } = await kvDatabase();
    const cache = new ReadCache(db);
    let loads = 0;
    const read = (k: string) =>
      cache.get(k, () => {
        loads++;
        return value(k);
      });

    assert.deepEqual(
      [read('x'), read('x'), read('nope'), read('nope')],
      ['committed', 'committed', undefined, undefined],
    );
    assert.equal(loads, 2);

    // The connection's own commits are invisible to the check: the reason every store write
    // goes through writeTransaction, which calls forget().
    db.prepare(`UPDATE kv SET v = 'own' WHERE k = 'x'`).run();
    assert.equal(read('x'), 'committed');
    cache.forget();
    assert.equal(read('x'), 'own');
    assert.equal(loads, 3);

    const other = new Database(db.name);
    cleanups.push(() => other.close());
    other.prepare(`INSERT INTO kv VALUES ('nope', 'other')`).run();
    await nextTurn();
    assert.deepEqual([read('nope'), read('x')], ['other', 'own']);
    assert.equal(loads, 5);
  });

  test('a commit landing right after a miss was loaded is seen by the next turn’s lookup', async () => {
    const { db, value } = await kvDatabase();
    const cache = new ReadCache(db);
    const other = new Database(db.name);
    cleanups.push(() => other.close());

    const loaded = cache.get('x', () => {
      const v = value('x');
      other.prepare(`UPDATE kv SET v = 'newer' WHERE k = 'x'`).run();
      return v;
    });

    assert.equal(loaded, 'committed');
    await nextTurn();
    assert.equal(
      cache.get('x', () => value('x')),
      'newer',
    );
  });

  test('holds at most `limit` entries, starting over when full', async () => {
    const { db, value } = await kvDatabase();
    const cache = new ReadCache(db, 3);
    let loads = 0;
    const read = (k: string) =>
      cache.get(k, () => {
        loads++;
        return value(k);
      });

    const sizes = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((k) => {
      read(k);
      return cache.size;
    });
    assert.deepEqual(sizes, [1, 2, 3, 1, 2, 3, 1]);
    assert.equal(read('g'), undefined);
    assert.equal(loads, 7);
    read('a'); // forgotten when the cache started over
    assert.equal(loads, 8);
  });

  test(`holds at most ${READ_CACHE_LIMIT} entries by default`, async () => {
    const { db, value } = await kvDatabase();
    const cache = new ReadCache(db);
    for (let i = 0; i < READ_CACHE_LIMIT; i++) cache.get(`miss-${i}`, () => value(`miss-${i}`));
    assert.equal(cache.size, 10_000);
    cache.get('one more', () => value('one more'));
    assert.equal(cache.size, 1);
  });
});
