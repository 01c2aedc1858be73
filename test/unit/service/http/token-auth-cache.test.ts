// The bound on TokenAuthenticator's remembered signature checks, end to end: real tokens, minted
// with a real key registered in a real store on a temp file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenAuthenticator } from '../../../../src/service/http/token-auth.js';
import { openStore, type Store } from '../../../../src/service/store/index.js';
import { mintSvc0 } from '../../../../src/token/mint.js';
import { createMemorySigner } from '../../../helpers/signers.js';
import { createTempDir, type TempDir } from '../../../helpers/tmp.js';

const NS = 'v0@localhost';
const signer = createMemorySigner('ed25519', 'laptop@host');

let dir: TempDir;
let store: Store;
let accountId: number;

before(async () => {
  dir = await createTempDir('token-auth');
  store = openStore(dir.join('exectl.db'));
  accountId = store.createAccount('owner@example.com', [
    {
      name: 'laptop',
      fingerprint: signer.publicKey.fingerprint,
      publicKey: signer.publicKey.toOpenSsh(),
      keyType: signer.publicKey.type,
    },
  ]).id;
});

after(async () => {
  store.close();
  await dir.remove();
});

/** A distinct valid token of the registered key: ed25519 signs deterministically, so vary exp. */
function token(n: number): Promise<string> {
  return mintSvc0(`{"exp":${4_000_000_000 + n},"cmds":["whoami"]}`, signer, NS);
}

test('the same token is verified once and remembered, not counted again', async () => {
  const auth = new TokenAuthenticator(store, Date.now, 2);
  const one = await token(1);
  assert.equal(auth.cachedVerifications, 0);
  assert.equal(auth.authenticate(one, NS).account.id, accountId);
  assert.equal(auth.cachedVerifications, 1);
  assert.equal(auth.authenticate(one, NS).account.id, accountId);
  assert.equal(auth.cachedVerifications, 1);
});

test('reaching the bound forgets every remembered check; a forgotten token verifies again', async () => {
  const auth = new TokenAuthenticator(store, Date.now, 2);
  const [one, two, three] = await Promise.all([token(1), token(2), token(3)]);

  for (const [t, count] of [
    [one, 1],
    [two, 2],
    // The bound is reached: all are forgotten, then this one is remembered.
    [three, 1],
  ] as const) {
    const caller = auth.authenticate(t, NS);
    assert.equal(caller.account.id, accountId);
    assert.equal(caller.principal.keyFingerprint, signer.publicKey.fingerprint);
    assert.equal(auth.cachedVerifications, count);
  }

  // `three` is still remembered: no new entry.
  auth.authenticate(three, NS);
  assert.equal(auth.cachedVerifications, 1);
  // `one` was forgotten: it is verified afresh (and still passes), and remembered anew.
  assert.deepEqual(auth.authenticate(one, NS).principal.cmds, ['whoami']);
  assert.equal(auth.cachedVerifications, 2);
});

test('without a limit given, the default bound is far above a handful of tokens', async () => {
  const auth = new TokenAuthenticator(store, Date.now);
  const tokens = await Promise.all([1, 2, 3, 4].map(token));
  for (const t of tokens) auth.authenticate(t, NS);
  assert.equal(auth.cachedVerifications, 4);
});
