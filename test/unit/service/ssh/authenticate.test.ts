// Public-key attempts judged against a real store: only a registered key, byte for byte, with
// a valid signature by that key, and never a SHA-1 RSA signature.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import ssh2, { type ParsedKey } from 'ssh2';
import {
  judgePublicKeyAttempt,
  type PublicKeyAttempt,
} from '../../../../src/service/ssh/authenticate.js';
import { openSshPrivateKey } from '../../../../src/service/ssh/host-key.js';
import { openStore, type Store } from '../../../../src/service/store/index.js';
import { parsePublicKey } from '../../../../src/token/keys.js';
import { createTempDir, type TempDir } from '../../../helpers/tmp.js';

interface TestKey {
  private: ParsedKey;
  blob: Buffer;
  type: string;
}

async function makeKey(type: 'ed25519' | 'ecdsa' | 'rsa'): Promise<TestKey> {
  // ed25519 through node:crypto: ssh2's own ed25519 generator writes a broken key now and then
  // (see openSshPrivateKey).
  const text =
    type === 'rsa'
      ? ssh2.utils.generateKeyPairSync('rsa', { bits: 2048 }).private
      : type === 'ecdsa'
        ? ssh2.utils.generateKeyPairSync('ecdsa', { bits: 256 }).private
        : await openSshPrivateKey(generateKeyPairSync('ed25519').privateKey);
  const parsed = ssh2.utils.parseKey(text) as ParsedKey;
  return { private: parsed, blob: parsed.getPublicSSH(), type: parsed.type };
}

let dir: TempDir;
let store: Store;
const keys: Record<'ed25519' | 'ecdsa' | 'rsa' | 'stranger', TestKey> = {
  ed25519: await makeKey('ed25519'),
  ecdsa: await makeKey('ecdsa'),
  rsa: await makeKey('rsa'),
  stranger: await makeKey('ed25519'),
};

before(async () => {
  dir = await createTempDir('ssh-auth');
  store = openStore(dir.join('exectl.db'));
  const registered = (['ed25519', 'ecdsa', 'rsa'] as const).map((name) => {
    const pub = parsePublicKey(`${keys[name].type} ${keys[name].blob.toString('base64')}`);
    return { name, fingerprint: pub.fingerprint, publicKey: pub.toOpenSsh(), keyType: pub.type };
  });
  store.createAccount('owner@example.com', registered);
});
after(async () => {
  store.close();
  await dir.remove();
});

const SESSION_DATA = Buffer.from('session id and userauth request, as ssh2 builds them');

/** A signed attempt; `hash` is what rsa-sha2-256/512 declare (undefined: ssh-rsa, SHA-1). */
function signed(key: TestKey, hash?: 'sha256' | 'sha512', data = SESSION_DATA): PublicKeyAttempt {
  return {
    algorithm: key.type,
    keyBlob: key.blob,
    hashAlgorithm: hash,
    proof: { signedData: SESSION_DATA, signature: key.private.sign(data, hash) },
  };
}

function query(key: TestKey, hash?: 'sha256' | 'sha512'): PublicKeyAttempt {
  return { algorithm: key.type, keyBlob: key.blob, hashAlgorithm: hash };
}

const CASES: [name: string, attempt: () => PublicKeyAttempt, verdict: 'accept' | 'reject'][] = [
  ['query for a registered ed25519 key', () => query(keys.ed25519), 'accept'],
  ['signature by a registered ed25519 key', () => signed(keys.ed25519), 'accept'],
  ['signature by a registered ECDSA key', () => signed(keys.ecdsa), 'accept'],
  ['rsa-sha2-512 signature', () => signed(keys.rsa, 'sha512'), 'accept'],
  ['rsa-sha2-256 signature', () => signed(keys.rsa, 'sha256'), 'accept'],
  ['ssh-rsa (SHA-1) query', () => query(keys.rsa), 'reject'],
  ['ssh-rsa (SHA-1) signature', () => signed(keys.rsa), 'reject'],
  ['query for an unregistered key', () => query(keys.stranger), 'reject'],
  ['signature by an unregistered key', () => signed(keys.stranger), 'reject'],
  ['signature over other data', () => signed(keys.ed25519, undefined, Buffer.from('x')), 'reject'],
  [
    'signature by another key, sent with a registered key',
    () => ({ ...signed(keys.stranger), keyBlob: keys.ed25519.blob }),
    'reject',
  ],
  [
    'algorithm name that does not match the key',
    () => ({ ...signed(keys.ed25519), algorithm: 'ecdsa-sha2-nistp256' }),
    'reject',
  ],
  [
    'garbage signature',
    () => ({
      ...signed(keys.ed25519),
      proof: { signedData: SESSION_DATA, signature: Buffer.alloc(3) },
    }),
    'reject',
  ],
  [
    'garbage key blob',
    () => ({ ...query(keys.ed25519), keyBlob: Buffer.from('nonsense') }),
    'reject',
  ],
];

for (const [name, attempt, verdict] of CASES) {
  test(`judge: ${name} → ${verdict}`, () => {
    assert.equal(judgePublicKeyAttempt(store, attempt()), verdict);
  });
}

test('judge: a stored key whose text differs from the offered blob is refused', () => {
  // Same fingerprint, other bytes: only a corrupted store could say so, and it must not pass.
  const fingerprint = parsePublicKey(
    `ssh-ed25519 ${keys.ed25519.blob.toString('base64')}`,
  ).fingerprint;
  const lying = {
    findKeyByFingerprint: (fp: string) =>
      fp === fingerprint
        ? {
            ...store.findKeyByFingerprint(fp)!,
            publicKey: `ssh-ed25519 ${keys.stranger.blob.toString('base64')}`,
          }
        : undefined,
  };
  assert.equal(judgePublicKeyAttempt(lying, signed(keys.ed25519)), 'reject');
});
