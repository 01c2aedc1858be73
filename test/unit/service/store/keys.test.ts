import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Account } from '../../../../src/service/store/index.js';
import { T0, fakeKey, openFixture, type StoreFixture } from '../../../helpers/store.js';

let f: StoreFixture;
let ada: Account;
let bob: Account;
before(async () => {
  f = await openFixture();
  ada = f.store.createAccount('ada@x.io');
  bob = f.store.createAccount('bob@x.io');
});
after(() => f.cleanup());

describe('addKey / findKeyByFingerprint / listKeys', () => {
  test('stores the key exactly and finds it by fingerprint', () => {
    const key = fakeKey(ada.id, 'laptop');
    const added = f.store.addKey(key);
    const expected = { ...key, addedAt: T0, lastUsedAt: null, tag: null };
    assert.deepEqual(added, expected);
    assert.deepEqual(f.store.findKeyByFingerprint(key.fingerprint), expected);
    assert.equal(f.store.findKeyByFingerprint('SHA256:unknown'), undefined);
  });

  test('lists an account’s keys oldest first, and only its own', () => {
    f.clock.advance(60);
    f.store.addKey(fakeKey(ada.id, 'desktop'));
    f.store.addKey(fakeKey(bob.id, 'bob-laptop', 'laptop'));
    assert.deepEqual(
      f.store.listKeys(ada.id).map((k) => [k.name, k.addedAt]),
      [
        ['laptop', T0],
        ['desktop', '2025-03-01T12:01:00Z'],
      ],
    );
    assert.deepEqual(
      f.store.listKeys(bob.id).map((k) => k.name),
      ['laptop'],
    );
  });

  const conflicts = [
    {
      what: 'a fingerprint registered on another account',
      key: () => ({ ...fakeKey(bob.id, 'laptop'), name: 'other' }),
      message: `ssh key ${fakeKey(0, 'laptop').fingerprint} is already registered`,
    },
    {
      what: 'a fingerprint registered on the same account',
      key: () => ({ ...fakeKey(ada.id, 'laptop'), name: 'again' }),
      message: `ssh key ${fakeKey(0, 'laptop').fingerprint} is already registered`,
    },
    {
      what: 'a name the account already uses',
      key: () => fakeKey(ada.id, 'fresh-key', 'desktop'),
      message: 'ssh key "desktop" already exists',
    },
  ];
  for (const { what, key, message } of conflicts) {
    test(`refuses ${what}`, () => {
      assert.throws(() => f.store.addKey(key()), { kind: 'duplicate', message });
    });
  }
});

describe('renameKey', () => {
  test('renames within the account', () => {
    const { fingerprint } = fakeKey(ada.id, 'desktop');
    const renamed = f.store.renameKey(fingerprint, 'workstation');
    assert.equal(renamed.name, 'workstation');
    assert.equal(f.store.findKeyByFingerprint(fingerprint)?.name, 'workstation');
  });

  test('refuses a name the account already uses, but not one another account uses', () => {
    const { fingerprint } = fakeKey(ada.id, 'workstation-key');
    f.store.addKey(fakeKey(ada.id, 'workstation-key', 'spare'));
    assert.throws(() => f.store.renameKey(fingerprint, 'laptop'), {
      kind: 'duplicate',
      message: 'ssh key "laptop" already exists',
    });
    assert.equal(
      f.store.renameKey(fakeKey(bob.id, 'bob-laptop').fingerprint, 'workstation').name,
      'workstation',
    );
  });

  test('says which key is missing', () => {
    assert.throws(() => f.store.renameKey('SHA256:nope', 'x'), {
      kind: 'not_found',
      message: 'ssh key SHA256:nope not found',
    });
  });
});

describe('removeKey', () => {
  test('removes the key and the svc1 handles it signed, not others', () => {
    const doomed = f.store.addKey(fakeKey(ada.id, 'doomed'));
    const svc1 = (fingerprint: string, handle: string) =>
      f.store.findOrCreateSvc1({
        fingerprint,
        namespace: 'v0@localhost',
        payload: Buffer.from('{"cmds":["ls"]}'),
        svc0: 'svc0.x.y',
        exp: 1900000000,
        newHandle: () => handle,
      });
    svc1(doomed.fingerprint, 'svc1.DOOMEDDOOMEDDOOMEDDOOMEDDO');
    svc1(fakeKey(ada.id, 'laptop').fingerprint, 'svc1.LAPTOPLAPTOPLAPTOPLAPTOPLA');

    assert.deepEqual(f.store.removeKey(doomed.fingerprint), doomed);

    assert.equal(f.store.findKeyByFingerprint(doomed.fingerprint), undefined);
    assert.equal(f.store.findSvc1('svc1.DOOMEDDOOMEDDOOMEDDOOMEDDO'), undefined);
    assert.equal(
      f.store.findSvc1('svc1.LAPTOPLAPTOPLAPTOPLAPTOPLA')?.fingerprint,
      fakeKey(0, 'laptop').fingerprint,
    );
    assert.throws(() => f.store.removeKey(doomed.fingerprint), {
      kind: 'not_found',
      message: `ssh key ${doomed.fingerprint} not found`,
    });
  });

  test('frees the fingerprint for registration again', () => {
    const key = fakeKey(bob.id, 'doomed');
    assert.equal(f.store.addKey(key).accountId, bob.id);
  });
});
