import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { encodeKeyBlob } from '../../../../src/token/key-blob.js';
import { rsaLine } from '../../../helpers/rsa-lines.js';
import { createMemorySigner } from '../../../helpers/signers.js';
import { openCommandFixture, T0, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;
let bob: User;

before(async () => {
  fx = await openCommandFixture();
  ada = fx.addUser('ada@example.com');
  bob = fx.addUser('bob@example.com');
});
after(() => fx.cleanup());

const newKey = (comment: string, kind: 'ed25519' | 'ecdsa-256' = 'ed25519') =>
  createMemorySigner(kind, comment).publicKey;

test('ssh-key list: every key with its times, current marks the key of this request', async () => {
  const own = ada.signer.publicKey;
  assert.deepEqual(await fx.run(ada, 'ssh-key list'), {
    ssh_keys: [
      {
        name: 'default',
        fingerprint: own.fingerprint,
        public_key: own.toOpenSsh(),
        added_at: T0,
        last_used_at: null,
        current: true,
        tag: null,
      },
    ],
  });
  fx.store.recordKeyUse(own.fingerprint, new Date('2025-03-01T12:30:00Z'));
  const data = (await fx.run(ada, 'ssh-key list')) as { ssh_keys: Record<string, unknown>[] };
  assert.equal(data.ssh_keys[0]?.last_used_at, '2025-03-01T12:30:00Z');
  assert.equal(
    await fx.text(ada, 'ssh-key list'),
    '   NAME     FINGERPRINT                                         ADDED                 LAST USED             TAG\n' +
      `*  default  ${own.fingerprint}  ${T0}  2025-03-01T12:30:00Z  -\n`,
  );
});

test('ssh-key add: quoted or pasted unquoted; default name is the comment, else key-N', async () => {
  const laptop = newKey('me@laptop');
  assert.deepEqual(await fx.run(ada, `ssh-key add '${laptop.toOpenSsh()}'`), {
    name: 'me@laptop',
    fingerprint: laptop.fingerprint,
    public_key: laptop.toOpenSsh(),
    status: 'added',
  });
  const desk = newKey('desk key', 'ecdsa-256');
  assert.deepEqual(await fx.run(ada, `ssh-key add --name desk ${desk.toOpenSsh()}`), {
    name: 'desk',
    fingerprint: desk.fingerprint,
    public_key: desk.toOpenSsh(),
    status: 'added',
  });
  // No comment, a comment already used as a name, an unusable comment: key-1, key-2, key-3.
  for (const [comment, name] of [
    ['', 'key-1'],
    ['me@laptop', 'key-2'],
    ['SHA256:looks-like-a-fingerprint', 'key-3'],
  ] as const) {
    const key = newKey(comment);
    const data = (await fx.run(ada, `ssh-key add ${key.toOpenSsh()}`)) as { name: string };
    assert.equal(data.name, name, comment);
  }
  const texted = newKey('');
  assert.equal(
    await fx.text(ada, `ssh-key add --name texted ${texted.toOpenSsh()}`),
    `added ssh key texted (${texted.fingerprint})\n`,
  );
  const names = (await fx.run(ada, 'ssh-key list')) as { ssh_keys: { name: string }[] };
  assert.deepEqual(
    names.ssh_keys.map((k) => k.name),
    ['default', 'me@laptop', 'desk', 'key-1', 'key-2', 'key-3', 'texted'],
  );
});

test('ssh-key add failures', async () => {
  const blob = encodeKeyBlob(
    createPublicKey(generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey).export({
      format: 'jwk',
    }),
  );
  const smallRsa = `ssh-rsa ${blob.toString('base64')} small`;
  const fresh = newKey('fresh');
  const cases: [line: string, message: string][] = [
    ['ssh-key add not-a-key', 'not an SSH public key'],
    ['ssh-key add ssh-ed25519 AAAA', 'invalid SSH public key'],
    [`ssh-key add ${smallRsa}`, 'RSA key of 1024 bits is too small'],
    [
      `ssh-key add ${fresh.toOpenSsh().replace('ssh-ed25519', 'ssh-rsa')}`,
      'SSH public key says "ssh-rsa" but holds a ssh-ed25519 key',
    ],
    [
      `ssh-key add ${ada.signer.publicKey.toOpenSsh()}`,
      `ssh key ${ada.signer.publicKey.fingerprint} is already registered`,
    ],
    // A key of another account: one key, one account.
    [
      `ssh-key add ${bob.signer.publicKey.toOpenSsh()}`,
      `ssh key ${bob.signer.publicKey.fingerprint} is already registered`,
    ],
    [`ssh-key add --name default ${fresh.toOpenSsh()}`, 'ssh key "default" already exists'],
    [
      `ssh-key add --name " spaced" ${fresh.toOpenSsh()}`,
      'invalid key name " spaced": use 1 to 64 printable characters, not starting with "SHA256:"',
    ],
    [
      `ssh-key add --name ${'n'.repeat(65)} ${fresh.toOpenSsh()}`,
      `invalid key name "${'n'.repeat(64)}...": use 1 to 64 printable characters, not starting with "SHA256:"`,
    ],
    ['ssh-key add', 'missing argument <public-key>'],
  ];
  for (const [line, message] of cases) {
    assert.deepEqual(await fx.fail(ada, line), { status: 422, message, body: undefined }, line);
  }
  assert.equal(fx.store.findKeyByFingerprint(fresh.fingerprint), undefined);
});

test('ssh-key add refuses RSA keys that are costly to verify: over 8192 bits, exponent over 2^32', async () => {
  const refused: [line: string, message: string][] = [
    [rsaLine(8200), 'RSA key of 8200 bits is too large (at most 8192)'],
    [rsaLine(16384), 'RSA key of 16384 bits is too large (at most 8192)'],
    [rsaLine(2048, 2n ** 32n + 1n), 'RSA public exponent is too large (at most 2^32)'],
    [rsaLine(2048, 2n ** 64n + 1n), 'RSA public exponent is too large (at most 2^32)'],
  ];
  for (const [key, message] of refused) {
    const line = `ssh-key add ${key}`;
    assert.deepEqual(await fx.fail(ada, line), { status: 422, message, body: undefined }, line);
  }
  // Up to the limits, a key is an ordinary key.
  for (const key of [rsaLine(8192, 65537n, 'at-bits'), rsaLine(2048, 2n ** 32n - 1n, 'at-e')]) {
    await fx.run(ada, `ssh-key add ${key}`);
  }
  assert.deepEqual(
    fx.store
      .listKeys(ada.account.id)
      .map((k) => k.name)
      .filter((n) => n.startsWith('at-')),
    ['at-bits', 'at-e'],
  );
});

test('ssh-key rename by name or fingerprint', async () => {
  const key = newKey('old');
  await fx.run(bob, `ssh-key add ${key.toOpenSsh()}`);
  assert.deepEqual(await fx.run(bob, 'ssh-key rename old newer'), {
    old_name: 'old',
    new_name: 'newer',
    fingerprint: key.fingerprint,
  });
  assert.deepEqual(await fx.run(bob, `ssh-key rename ${key.fingerprint} "my laptop"`), {
    old_name: 'newer',
    new_name: 'my laptop',
    fingerprint: key.fingerprint,
  });
  assert.equal(fx.store.findKeyByFingerprint(key.fingerprint)?.name, 'my laptop');
  assert.equal(
    await fx.text(bob, "ssh-key rename 'my laptop' lap"),
    'renamed ssh key my laptop to lap\n',
  );
  const cases: [line: string, message: string][] = [
    ['ssh-key rename nope x', 'ssh key "nope" not found'],
    ['ssh-key rename lap default', 'ssh key "default" already exists'],
    [
      'ssh-key rename lap ""',
      'invalid key name "": use 1 to 64 printable characters, not starting with "SHA256:"',
    ],
    // Another account's key, by fingerprint: not found, like a key that does not exist.
    [
      `ssh-key rename ${ada.signer.publicKey.fingerprint} mine`,
      `ssh key "${ada.signer.publicKey.fingerprint}" not found`,
    ],
  ];
  for (const [line, message] of cases) {
    assert.deepEqual(await fx.fail(bob, line), { status: 422, message, body: undefined }, line);
  }
});

test('ssh-key remove by name, fingerprint or public key (quoted or not)', async () => {
  const carol = fx.addUser('carol@example.com');
  const [k1, k2, k3] = [newKey('one'), newKey('two'), newKey('three')];
  for (const key of [k1, k2, k3]) await fx.run(carol, `ssh-key add ${key.toOpenSsh()}`);
  assert.deepEqual(await fx.run(carol, 'ssh-key remove one'), {
    name: 'one',
    fingerprint: k1.fingerprint,
    status: 'removed',
  });
  assert.deepEqual(await fx.run(carol, `ssh-key remove ${k2.fingerprint}`), {
    name: 'two',
    fingerprint: k2.fingerprint,
    status: 'removed',
  });
  assert.equal(
    await fx.text(carol, `ssh-key remove ${k3.toOpenSsh()}`),
    `removed ssh key three (${k3.fingerprint})\n`,
  );
  for (const key of [k1, k2, k3])
    assert.equal(fx.store.findKeyByFingerprint(key.fingerprint), undefined);
});

test("ssh-key remove failures: unknown, another account's, the only key", async () => {
  const dan = fx.addUser('dan@example.com');
  const cases: [line: string, message: string][] = [
    ['ssh-key remove nope', 'ssh key "nope" not found'],
    [
      `ssh-key remove ${ada.signer.publicKey.fingerprint}`,
      `ssh key "${ada.signer.publicKey.fingerprint}" not found`,
    ],
    [
      `ssh-key remove ${ada.signer.publicKey.toOpenSsh()}`,
      `ssh key ${JSON.stringify(ada.signer.publicKey.toOpenSsh().slice(0, 64) + '...')} not found`,
    ],
    [
      'ssh-key remove default',
      'cannot remove the last ssh key of your account: add another first (ssh-key add, or `exectl serve accounts add <email> --key FILE` on the server)',
    ],
    ['ssh-key remove', 'missing argument <key>'],
  ];
  for (const [line, message] of cases) {
    assert.deepEqual(await fx.fail(dan, line), { status: 422, message, body: undefined }, line);
  }
  assert.notEqual(fx.store.findKeyByFingerprint(ada.signer.publicKey.fingerprint), undefined);
});

test('ssh-key remove of the key signing this request is allowed (it revokes that token)', async () => {
  const erin = fx.addUser('erin@example.com');
  await fx.run(erin, `ssh-key add --name spare ${newKey('spare').toOpenSsh()}`);
  assert.deepEqual(await fx.run(erin, 'ssh-key remove default'), {
    name: 'default',
    fingerprint: erin.signer.publicKey.fingerprint,
    status: 'removed',
  });
  assert.equal(fx.store.findKeyByFingerprint(erin.signer.publicKey.fingerprint), undefined);
});
