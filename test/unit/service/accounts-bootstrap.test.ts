// The first-start bootstrap on a real SQLite file, with keys made by real ssh-keygen.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import {
  bootstrapOwner,
  hasNoAccounts,
  parseKeyLines,
  type KeyLine,
} from '../../../src/service/accounts.js';
import { openStore } from '../../../src/service/store/index.js';
import { parsePublicKey } from '../../../src/token/keys.js';
import { generateKey, run, type GeneratedKey } from '../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';
import { rsaLine } from '../../helpers/rsa-lines.js';

let dir: TempDir;
let ed: GeneratedKey;
let rsa: GeneratedKey;
let noComment: GeneratedKey;
let small: GeneratedKey;
before(async () => {
  dir = await createTempDir('bootstrap');
  ed = await generateKey(dir.path, 'ed25519', { comment: 'laptop' });
  rsa = await generateKey(dir.path, 'rsa-2048', { comment: 'laptop' });
  noComment = await generateKey(dir.path, 'ecdsa-256', { comment: '' });
  small = await generateKey(dir.path, 'ed25519', { name: 'small' });
  // A 1024-bit RSA key: ssh-keygen still makes them, exectl refuses them.
  await run('ssh-keygen', ['-q', '-t', 'rsa', '-b', '1024', '-N', '', '-f', dir.join('rsa1024')]);
});
after(() => dir.remove());

const line = (key: GeneratedKey, source = key.pubPath): KeyLine => ({
  line: key.publicKeyLine,
  source,
});

describe('parseKeyLines', () => {
  test('keeps each key once, in order, and reports the lines it cannot use', async () => {
    const rsa1024 = (await readFile(dir.join('rsa1024.pub'), 'utf8')).trim();
    const { keys, rejected } = parseKeyLines([
      line(ed),
      { line: 'not a key', source: 'junk.pub' },
      line(rsa),
      { line: rsa1024, source: 'rsa1024.pub' },
      line(ed, 'copy.pub'),
      { line: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 x', source: 'short.pub:3' },
      { line: rsaLine(2048, 2n ** 32n + 1n), source: 'exponent.pub' },
    ]);
    assert.deepEqual(
      keys.map((k) => k.toOpenSsh()),
      [ed.publicKeyLine, rsa.publicKeyLine],
    );
    assert.deepEqual(rejected, [
      { source: 'junk.pub', reason: 'not an SSH public key' },
      { source: 'rsa1024.pub', reason: 'RSA key of 1024 bits is too small' },
      { source: 'short.pub:3', reason: 'invalid SSH public key' },
      { source: 'exponent.pub', reason: 'RSA public exponent is too large (at most 2^32)' },
    ]);
  });
});

describe('bootstrapOwner', () => {
  test('creates the owner with its keys on an empty store, then never again', async () => {
    const store = openStore(dir.join('owner.db'));
    try {
      assert.equal(hasNoAccounts(store), true);
      const keys = [ed, rsa, noComment].map((k) => parsePublicKey(k.publicKeyLine));
      const made = bootstrapOwner(store, 'me@example.com', keys);
      assert.ok(made !== undefined);
      assert.equal(made.created, true);
      assert.equal(made.account.email, 'me@example.com');
      // Names as `ssh-key add` gives them: the comment, else the first free key-N.
      assert.deepEqual(
        made.added.map((k) => [k.name, k.fingerprint, k.publicKey]),
        [
          ['laptop', keys[0]!.fingerprint, ed.publicKeyLine],
          ['key-1', keys[1]!.fingerprint, rsa.publicKeyLine],
          ['key-2', keys[2]!.fingerprint, noComment.publicKeyLine],
        ],
      );
      assert.equal(hasNoAccounts(store), false);

      const again = bootstrapOwner(store, 'other@example.com', [
        parsePublicKey(small.publicKeyLine),
      ]);
      assert.equal(again, undefined);
      assert.deepEqual(
        store.listAccounts().map((a) => a.email),
        ['me@example.com'],
      );
      assert.equal(
        store.findKeyByFingerprint(parsePublicKey(small.publicKeyLine).fingerprint),
        undefined,
      );
    } finally {
      store.close();
    }
  });

  test('an owner without keys is still created (the CLI warns about it)', () => {
    const store = openStore(dir.join('nokeys.db'));
    try {
      const made = bootstrapOwner(store, 'solo@example.com', []);
      assert.deepEqual([made?.created, made?.added], [true, []]);
      assert.deepEqual(store.listKeys(made!.account.id), []);
    } finally {
      store.close();
    }
  });

  test('survives a reopen: the owner and keys are on disk', () => {
    const store = openStore(dir.join('owner.db'));
    try {
      const owner = store.findAccountByEmail('me@example.com');
      assert.ok(owner !== undefined);
      assert.deepEqual(
        store.listKeys(owner.id).map((k) => k.name),
        ['laptop', 'key-1', 'key-2'],
      );
    } finally {
      store.close();
    }
  });
});
