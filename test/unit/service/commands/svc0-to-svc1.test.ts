import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { isWellFormedSvc1 } from '../../../../src/token/format.js';
import { parsePublicKey } from '../../../../src/token/keys.js';
import { mintSvc0 } from '../../../../src/token/mint.js';
import { generateKey, mintWithShellRecipe } from '../../../helpers/keys.js';
import { createMemorySigner, type MemorySigner } from '../../../helpers/signers.js';
import { openCommandFixture, T0_SECONDS, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;
let bob: User;
let adaEcdsa: MemorySigner;

before(async () => {
  fx = await openCommandFixture();
  ada = fx.addUser('ada@example.com');
  bob = fx.addUser('bob@example.com');
  fx.addVm(ada, 'web');
  // ECDSA signatures are randomized: the same payload signed twice gives different tokens.
  adaEcdsa = createMemorySigner('ecdsa-256', 'ada-ecdsa');
  fx.store.addKey({
    accountId: ada.account.id,
    fingerprint: adaEcdsa.publicKey.fingerprint,
    name: 'ecdsa',
    publicKey: adaEcdsa.publicKey.toOpenSsh(),
    keyType: adaEcdsa.publicKey.type,
  });
});
after(() => fx.cleanup());

const HOUR_LATER = T0_SECONDS + 3600;

async function exchange(user: User, token: string, vm?: string): Promise<string> {
  const flag = vm === undefined ? '' : `--vm ${vm} `;
  const data = (await fx.run(user, `svc0-to-svc1 ${flag}${token}`)) as { token: string };
  assert.deepEqual(Object.keys(data), ['token']);
  assert.ok(isWellFormedSvc1(data.token), data.token);
  return data.token;
}

test('a svc0 of the caller becomes a stored svc1 that expires with it', async () => {
  const payload = `{"exp":${HOUR_LATER},"cmds":["ls"]}`;
  const svc0 = await mintSvc0(payload, ada.signer, 'v0@localhost');
  const svc1 = await exchange(ada, svc0);
  const record = fx.store.findSvc1(svc1);
  assert.equal(record?.svc0, svc0);
  assert.equal(record?.exp, HOUR_LATER);
  assert.equal(record?.namespace, 'v0@localhost');
  assert.equal(record?.fingerprint, ada.signer.publicKey.fingerprint);
  assert.equal(await fx.text(ada, `svc0-to-svc1 ${svc0}`), `${svc1}\n`);
});

test('the same svc0 always gives the same svc1; so does a re-signed same payload', async () => {
  const payload = `{"exp":${HOUR_LATER},"ctx":{"job":1}}`;
  const first = await mintSvc0(payload, adaEcdsa, 'v0@localhost');
  const again = await mintSvc0(payload, adaEcdsa, 'v0@localhost');
  assert.notEqual(first, again, 'ECDSA signs differently each time');
  const svc1 = await exchange(ada, first);
  assert.equal(await exchange(ada, first), svc1);
  assert.equal(await exchange(ada, again), svc1);
  // The first svc0 stays the one stored.
  assert.equal(fx.store.findSvc1(svc1)?.svc0, first);

  const other = await mintSvc0(`{"exp":${HOUR_LATER},"ctx":{"job":2}}`, adaEcdsa, 'v0@localhost');
  assert.notEqual(await exchange(ada, other), svc1);
  const byOtherKey = await mintSvc0(payload, ada.signer, 'v0@localhost');
  assert.notEqual(await exchange(ada, byOtherKey), svc1);
});

test('a token made with the SPEC shell recipe (real ssh-keygen) is exchanged', async () => {
  const key = await generateKey(fx.dir.path, 'ed25519', { comment: 'recipe' });
  const pub = parsePublicKey(key.publicKeyLine);
  fx.store.addKey({
    accountId: ada.account.id,
    fingerprint: pub.fingerprint,
    name: 'recipe',
    publicKey: pub.toOpenSsh(),
    keyType: pub.type,
  });
  const svc0 = await mintWithShellRecipe(
    key,
    '{"exp":1900000000,"cmds":["whoami"]}',
    'v0@localhost',
  );
  const svc1 = await exchange(ada, svc0);
  assert.equal(fx.store.findSvc1(svc1)?.exp, 1900000000);
});

test('--vm: a VM token of a visible VM, signed for v0@<vm>.<domain>', async () => {
  const svc0 = await mintSvc0(`{"exp":${HOUR_LATER}}`, ada.signer, 'v0@web.localhost');
  const svc1 = await exchange(ada, svc0, 'web');
  assert.equal(fx.store.findSvc1(svc1)?.namespace, 'v0@web.localhost');
  // The same token without --vm is for the wrong namespace.
  assert.deepEqual(await fx.fail(ada, `svc0-to-svc1 ${svc0}`), {
    status: 422,
    message: 'invalid svc0 token: not signed by one of your keys for v0@localhost',
    body: undefined,
  });
  assert.equal((await fx.fail(bob, `svc0-to-svc1 --vm web ${svc0}`)).message, 'vm "web" not found');
});

test('nbf is not checked now, exp is', async () => {
  const future = await mintSvc0(
    `{"nbf":${HOUR_LATER},"exp":${HOUR_LATER + 60}}`,
    ada.signer,
    'v0@localhost',
  );
  await exchange(ada, future);
  const expired = await mintSvc0(`{"exp":${T0_SECONDS - 1}}`, ada.signer, 'v0@localhost');
  assert.deepEqual(await fx.fail(ada, `svc0-to-svc1 ${expired}`), {
    status: 422,
    message: 'invalid svc0 token: expired',
    body: undefined,
  });
  // Valid until exp inclusive (now > exp is expired).
  const lastSecond = await mintSvc0(`{"exp":${T0_SECONDS}}`, ada.signer, 'v0@localhost');
  await exchange(ada, lastSecond);
  // nbf past exp: never valid, so it reads as expired.
  const never = await mintSvc0(
    `{"nbf":${HOUR_LATER},"exp":${T0_SECONDS + 60}}`,
    ada.signer,
    'v0@localhost',
  );
  assert.equal(
    (await fx.fail(ada, `svc0-to-svc1 ${never}`)).message,
    'invalid svc0 token: expired',
  );
});

test('tokens of a stranger, an unregistered key or another namespace are refused alike', async () => {
  const refusal = 'invalid svc0 token: not signed by one of your keys for v0@localhost';
  const payload = `{"exp":${HOUR_LATER}}`;
  const lines = [
    await mintSvc0(payload, bob.signer, 'v0@localhost'),
    await mintSvc0(payload, createMemorySigner('ed25519'), 'v0@localhost'),
    await mintSvc0(payload, ada.signer, 'v0@elsewhere'),
  ];
  for (const svc0 of lines) {
    assert.deepEqual(await fx.fail(ada, `svc0-to-svc1 ${svc0}`), {
      status: 422,
      message: refusal,
      body: undefined,
    });
  }
  // A forged signature: ada's payload with the signature of another payload.
  const signed = await mintSvc0(payload, ada.signer, 'v0@localhost');
  const otherSig = (await mintSvc0(`{"exp":${HOUR_LATER + 1}}`, ada.signer, 'v0@localhost')).split(
    '.',
  )[2];
  const forged = `${signed.split('.').slice(0, 2).join('.')}.${otherSig}`;
  assert.equal((await fx.fail(ada, `svc0-to-svc1 ${forged}`)).message, refusal);
});

test('structural failures name the reason', async () => {
  const handle = await exchange(ada, await mintSvc0('{}', ada.signer, 'v0@localhost'));
  const cases: [token: string, message: string][] = [
    ['svc0.nope', 'invalid svc0 token: malformed'],
    ['hello', 'invalid svc0 token: malformed'],
    ['svc0.e30=.AAAA', 'invalid svc0 token: payload is not valid base64url'],
    [
      `svc0.${Buffer.from('{"exp":1}').toString('base64url')}.AAAA`,
      'invalid svc0 token: exp out of range',
    ],
    [`svc0.${'A'.repeat(8200)}.AAAA`, 'invalid svc0 token: exceeds 8192 bytes'],
    [handle, 'this is already a svc1 token'],
  ];
  for (const [token, message] of cases) {
    assert.deepEqual(
      await fx.fail(ada, `svc0-to-svc1 ${token}`),
      { status: 422, message, body: undefined },
      message,
    );
  }
  assert.equal((await fx.fail(ada, 'svc0-to-svc1')).message, 'missing argument <svc0-token>');
});
