// ensureAccount, shared by the first start, `serve accounts add` and the seed: on a real
// SQLite file with real ssh-keygen keys.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ensureAccount } from '../../../src/service/accounts.js';
import { openStore, type Store } from '../../../src/service/store/index.js';
import { parsePublicKey, type PublicKey } from '../../../src/token/keys.js';
import { generateKey } from '../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

let dir: TempDir;
let store: Store;
let a: PublicKey; // comment "laptop"
let b: PublicKey; // comment "laptop" too
let c: PublicKey; // no comment
let run = 0;
before(async () => {
  dir = await createTempDir('ensure');
  const key = async (name: string, comment: string) =>
    parsePublicKey((await generateKey(dir.path, 'ed25519', { name, comment })).publicKeyLine);
  [a, b, c] = [await key('a', 'laptop'), await key('b', 'laptop'), await key('c', '')];
});
beforeEach(() => {
  store?.close();
  store = openStore(dir.join(`ensure-${run++}.db`));
});
after(async () => {
  store.close();
  await dir.remove();
});

const names = (email: string) =>
  store.listKeys(store.findAccountByEmail(email)!.id).map((k) => [k.name, k.fingerprint]);

describe('ensureAccount', () => {
  test('creates a missing account with its keys, each key once', () => {
    const result = ensureAccount(store, 'ada@example.com', [{ key: a }, { key: b }, { key: a }]);
    assert.equal(result.created, true);
    assert.deepEqual(result.renamed, []);
    assert.deepEqual(
      result.added.map((k) => k.name),
      ['laptop', 'key-1'],
    );
    assert.deepEqual(names('ada@example.com'), [
      ['laptop', a.fingerprint],
      ['key-1', b.fingerprint],
    ]);
  });

  test('on an existing account: adds what is missing, leaves what is held', () => {
    ensureAccount(store, 'ada@example.com', [{ key: a }]);
    const result = ensureAccount(store, 'ada@example.com', [{ key: a }, { key: c }]);
    assert.deepEqual(
      [result.created, result.added.map((k) => k.name), result.renamed],
      [false, ['key-1'], []],
    );
    const again = ensureAccount(store, 'ada@example.com', [{ key: a }, { key: c }]);
    assert.deepEqual([again.created, again.added, again.renamed], [false, [], []]);
  });

  test('renames held keys to the names asked for; default names avoid those names', () => {
    ensureAccount(store, 'ada@example.com', [{ key: a }]);
    const result = ensureAccount(store, 'ada@example.com', [{ key: c }, { key: a, name: 'key-1' }]);
    assert.deepEqual(
      result.renamed.map((k) => [k.name, k.fingerprint]),
      [['key-1', a.fingerprint]],
    );
    assert.deepEqual(
      result.added.map((k) => k.name),
      ['key-2'],
    );
  });

  test('a key of another account is refused before anything changes', () => {
    ensureAccount(store, 'ada@example.com', [{ key: a }]);
    assert.throws(() => ensureAccount(store, 'bob@example.com', [{ key: c }, { key: a }]), {
      code: 'command_failed',
      message: `ssh key ${a.fingerprint} is registered to another account`,
    });
    assert.equal(store.findAccountByEmail('bob@example.com'), undefined);
    assert.equal(store.findKeyByFingerprint(c.fingerprint), undefined);
  });

  test('a name held by another key of the account is the store refusal', () => {
    ensureAccount(store, 'ada@example.com', [{ key: a }]);
    assert.throws(() => ensureAccount(store, 'ada@example.com', [{ key: b, name: 'laptop' }]), {
      code: 'command_failed',
      message: 'ssh key "laptop" already exists',
    });
  });

  test('emails match as the store matches them (ASCII case folded)', () => {
    ensureAccount(store, 'Ada@Example.com', []);
    const result = ensureAccount(store, 'ada@example.com', [{ key: a }]);
    assert.deepEqual([result.created, result.account.email], [false, 'Ada@Example.com']);
  });
});
