// The read cache behind findKeyByFingerprint, listKeys and getAccount: every lookup after a
// change, whoever made it, must see the change; and the cache itself must stay bounded.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { createTempDir, type TempDir } from '../../../helpers/tmp.js';
import { openStore, type Account, type SshKeyRecord } from '../../../../src/service/store/index.js';
import { READ_CACHE_LIMIT, ReadCache } from '../../../../src/service/store/read-cache.js';
import { T0, fakeKey, openFixture, type StoreFixture } from './fixture.js';

const cleanups: (() => unknown)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A fresh store with ada@x.io and her key `laptop`, whose lookups are already cached. */
async function withCachedKey(): Promise<{ f: StoreFixture; ada: Account; laptop: SshKeyRecord }> {
  const f = await openFixture();
  cleanups.push(() => f.cleanup());
  const ada = f.store.createAccount('ada@x.io');
  const laptop = f.store.addKey(fakeKey(ada.id, 'laptop'));
  assert.deepEqual(f.store.findKeyByFingerprint(laptop.fingerprint), laptop);
  assert.deepEqual(f.store.listKeys(ada.id), [laptop]);
  assert.deepEqual(f.store.getAccount(ada.id), ada);
  return { f, ada, laptop };
}

const names = (keys: SshKeyRecord[]) => keys.map((k) => k.name);

describe('lookups after this store’s own writes', () => {
  test('removeKey: the key is not found and listKeys shrinks', async () => {
    const { f, ada, laptop } = await withCachedKey();
    f.clock.advance(60);
    f.store.addKey(fakeKey(ada.id, 'desktop'));
    assert.deepEqual(names(f.store.listKeys(ada.id)), ['laptop', 'desktop']);

    f.store.removeKey(laptop.fingerprint);

    assert.equal(f.store.findKeyByFingerprint(laptop.fingerprint), undefined);
    assert.deepEqual(names(f.store.listKeys(ada.id)), ['desktop']);
  });

  test('addKey: listKeys grows and an earlier miss for the fingerprint now finds it', async () => {
    const { f, ada, laptop } = await withCachedKey();
    const desktop = fakeKey(ada.id, 'desktop');
    assert.equal(f.store.findKeyByFingerprint(desktop.fingerprint), undefined);

    f.clock.advance(60);
    f.store.addKey(desktop);

    const expected = { ...desktop, addedAt: '2025-03-01T12:01:00Z', lastUsedAt: null };
    assert.deepEqual(f.store.findKeyByFingerprint(desktop.fingerprint), expected);
    assert.deepEqual(f.store.listKeys(ada.id), [laptop, expected]);
  });

  test('renameKey: both lookups show the new name', async () => {
    const { f, ada, laptop } = await withCachedKey();

    f.store.renameKey(laptop.fingerprint, 'workstation');

    assert.deepEqual(f.store.findKeyByFingerprint(laptop.fingerprint), {
      ...laptop,
      name: 'workstation',
    });
    assert.deepEqual(names(f.store.listKeys(ada.id)), ['workstation']);
  });

  test('removeAccount: the account and its key are gone', async () => {
    const { f, ada, laptop } = await withCachedKey();

    f.store.removeAccount(ada.id);

    assert.equal(f.store.getAccount(ada.id), undefined);
    assert.equal(f.store.findKeyByFingerprint(laptop.fingerprint), undefined);
    assert.deepEqual(f.store.listKeys(ada.id), []);
  });

  test('createAccount: earlier misses for its id and its keys now find them', async () => {
    const { f, ada } = await withCachedKey();
    const bobKey = fakeKey(0, 'bob-laptop', 'laptop');
    const nextId = ada.id + 1;
    assert.equal(f.store.getAccount(nextId), undefined);
    assert.equal(f.store.findKeyByFingerprint(bobKey.fingerprint), undefined);
    assert.deepEqual(f.store.listKeys(nextId), []);

    const bob = f.store.createAccount('bob@x.io', [bobKey]);

    assert.equal(bob.id, nextId);
    assert.deepEqual(f.store.getAccount(nextId), bob);
    const expected = { ...bobKey, accountId: bob.id, addedAt: T0, lastUsedAt: null };
    assert.deepEqual(f.store.findKeyByFingerprint(bobKey.fingerprint), expected);
    assert.deepEqual(f.store.listKeys(bob.id), [expected]);
  });

  test('a recorded key use shows at once, before and after the flush', async () => {
    const { f, ada, laptop } = await withCachedKey();
    f.clock.advance(30);

    f.store.recordKeyUse(laptop.fingerprint);

    const used = { ...laptop, lastUsedAt: '2025-03-01T12:00:30Z' };
    assert.deepEqual(f.store.findKeyByFingerprint(laptop.fingerprint), used);
    assert.deepEqual(f.store.listKeys(ada.id), [used]);
    f.store.flushKeyUse();
    assert.deepEqual(f.store.findKeyByFingerprint(laptop.fingerprint), used);
    assert.deepEqual(f.store.listKeys(ada.id), [used]);
  });
});

describe('lookups after another connection’s commits', () => {
  test('a second store on the same file removes a key, then adds one, then the account', async () => {
    const { f, ada, laptop } = await withCachedKey();
    const other = openStore(f.dbPath, { now: f.clock.now });
    cleanups.push(() => other.close());

    other.removeKey(laptop.fingerprint);
    // Tolerated, not required: within the turn that already checked, the cache may still answer
    // as of that check. Authentication asks for a check per request (next test).
    assert.equal(f.store.findKeyByFingerprint(laptop.fingerprint)?.name, 'laptop');
    await nextTurn();
    assert.equal(f.store.findKeyByFingerprint(laptop.fingerprint), undefined);
    assert.deepEqual(f.store.listKeys(ada.id), []);

    const desktop = other.addKey(fakeKey(ada.id, 'desktop'));
    await nextTurn();
    assert.deepEqual(f.store.findKeyByFingerprint(desktop.fingerprint), desktop);
    assert.deepEqual(f.store.listKeys(ada.id), [desktop]);

    other.removeAccount(ada.id);
    await nextTurn();
    assert.equal(f.store.getAccount(ada.id), undefined);
    assert.equal(f.store.findKeyByFingerprint(desktop.fingerprint), undefined);
  });
});

describe('catchUpWithOtherProcesses', () => {
  test('sees another connection’s commit at once, within the same turn', async () => {
    const { f, ada, laptop } = await withCachedKey();
    const other = openStore(f.dbPath, { now: f.clock.now });
    cleanups.push(() => other.close());

    other.removeKey(laptop.fingerprint);
    f.store.catchUpWithOtherProcesses();
    assert.equal(f.store.findKeyByFingerprint(laptop.fingerprint), undefined);
    assert.deepEqual(f.store.listKeys(ada.id), []);

    other.removeAccount(ada.id);
    f.store.catchUpWithOtherProcesses();
    assert.equal(f.store.getAccount(ada.id), undefined);
  });
});

describe('returned records', () => {
  test('are fresh objects: mutating one does not change the next result', async () => {
    const { f, ada, laptop } = await withCachedKey();
    const laptopCopy = { ...laptop };
    const adaCopy = { ...ada };

    f.store.findKeyByFingerprint(laptop.fingerprint)!.name = 'mutated';
    const list = f.store.listKeys(ada.id);
    list[0]!.name = 'mutated';
    list.push({ ...laptop, fingerprint: 'SHA256:pushed' });
    f.store.getAccount(ada.id)!.email = 'mutated@x.io';

    assert.deepEqual(f.store.findKeyByFingerprint(laptop.fingerprint), laptopCopy);
    assert.deepEqual(f.store.listKeys(ada.id), [laptopCopy]);
    assert.deepEqual(f.store.getAccount(ada.id), adaCopy);
  });
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
