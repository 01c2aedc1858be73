// The read cache behind findKeyByFingerprint, listKeys and getAccount: every lookup after a
// change, whoever made it, must see the change (ReadCache itself: read-cache-class.test.ts).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { openStore, type Account, type SshKeyRecord } from '../../../../src/service/store/index.js';
import { T0, fakeKey, openFixture, type StoreFixture } from '../../../helpers/store.js';

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

    const expected = { ...desktop, addedAt: '2025-03-01T12:01:00Z', lastUsedAt: null, tag: null };
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
    const expected = { ...bobKey, accountId: bob.id, addedAt: T0, lastUsedAt: null, tag: null };
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
    // as of that check (while a server runs, its folder's lock keeps other exectl processes out).
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

describe('dataGeneration', () => {
  test('stays while only reads happen; moves on an own write and on another connection’s commit', async () => {
    const { f, ada, laptop } = await withCachedKey();
    const before = f.store.dataGeneration();
    f.store.findKeyByFingerprint(laptop.fingerprint);
    await nextTurn();
    assert.equal(f.store.dataGeneration(), before);

    f.store.renameKey(laptop.fingerprint, 'work');
    const afterOwnWrite = f.store.dataGeneration();
    assert.notEqual(afterOwnWrite, before);

    const other = openStore(f.dbPath, { now: f.clock.now });
    cleanups.push(() => other.close());
    other.addKey(fakeKey(ada.id, 'desktop'));
    // Seen from the next turn on, as the cache's lookups see it.
    await nextTurn();
    assert.notEqual(f.store.dataGeneration(), afterOwnWrite);
  });
});
