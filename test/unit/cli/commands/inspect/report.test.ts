import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { inspectToken, type Inspection } from '../../../../../src/inspection/report.js';
import {
  readTrustedKeys,
  type TrustedKey,
} from '../../../../../src/cli/commands/inspect/verify-keys.js';
import { joinSvc0 } from '../../../../../src/token/format.js';
import { fingerprintOf, loadPrivateKey, type Signer } from '../../../../../src/token/keys.js';
import { mintSvc0 } from '../../../../../src/token/mint.js';
import { encodeSshSig } from '../../../../../src/token/sshsig.js';
import { sshString } from '../../../../../src/token/ssh-wire.js';
import { generateKey } from '../../../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../../../helpers/tmp.js';

const NOW = 1_700_000_000;
let dir: TempDir;
let signer: Signer;
let trusted: TrustedKey[];
let strangers: TrustedKey[];

before(async () => {
  dir = await createTempDir('unit-inspect');
  const key = await generateKey(dir.path, 'ed25519');
  const other = await generateKey(dir.path, 'ed25519', { name: 'other' });
  signer = await loadPrivateKey(key.path, { passphrase: async () => undefined });
  trusted = readTrustedKeys(key.pubPath);
  strangers = readTrustedKeys(other.pubPath);
  await writeFile(dir.join('restricted'), `x namespaces="v0@example.com" ${key.publicKeyLine}\n`);
});
after(() => dir.remove());

const mint = (payload: string, namespace = 'v0@localhost') => mintSvc0(payload, signer, namespace);

function summary({ report, failure }: Inspection) {
  return {
    valid: report.valid,
    reason: report.reason,
    exp: report.exp?.relative ?? null,
    nbf: report.nbf?.relative ?? null,
    structural: failure?.structural ?? null,
  };
}

test('validity and relative times at a fixed now', async () => {
  const cases: [string, ReturnType<typeof summary>][] = [
    [
      `{"exp":${NOW + 3599}}`,
      { valid: true, reason: null, exp: 'expires in 59m', nbf: null, structural: null },
    ],
    [
      `{"exp":${NOW}}`,
      { valid: true, reason: null, exp: 'expires in 0s', nbf: null, structural: null },
    ],
    [
      `{"exp":${NOW - 3 * 3600}}`,
      { valid: false, reason: 'expired', exp: 'expired 3h ago', nbf: null, structural: false },
    ],
    [
      `{"exp":${NOW + 3600},"nbf":${NOW + 300}}`,
      {
        valid: false,
        reason: 'not_yet_valid',
        exp: 'expires in 1h',
        nbf: 'not valid for another 5m',
        structural: false,
      },
    ],
    [
      `{"nbf":${NOW - 2 * 86_400}}`,
      { valid: true, reason: null, exp: null, nbf: 'valid since 2d ago', structural: null },
    ],
    ['{}', { valid: true, reason: null, exp: null, nbf: null, structural: null }],
  ];
  for (const [payload, expected] of cases) {
    assert.deepEqual(summary(inspectToken(await mint(payload), NOW)), expected, payload);
  }
});

test('--verify: the key, its namespaces, and a token outside its time window', async () => {
  const fresh = await mint(`{"exp":${NOW + 60}}`);
  const expired = await mint(`{"exp":${NOW - 60}}`);
  const elsewhere = await mint(`{"exp":${NOW + 60}}`, 'v0@example.com');
  const restricted = readTrustedKeys(dir.join('restricted'));
  const cases: [string, string, TrustedKey[], boolean | null, string | null][] = [
    ['good key', fresh, trusted, true, null],
    ['other key', fresh, strangers, false, 'rejected'],
    ['expired, good key', expired, trusted, true, 'expired'],
    ['expired, other key', expired, strangers, false, 'expired'],
    ['namespace not allowed for the key', fresh, restricted, false, 'rejected'],
    ['namespace allowed for the key', elsewhere, restricted, true, null],
  ];
  for (const [name, token, keys, verified, reason] of cases) {
    const { report } = inspectToken(token, NOW, keys);
    assert.deepEqual([report.signature_verified, report.reason], [verified, reason], name);
  }
  assert.equal(inspectToken(fresh, NOW).report.signature_verified, null);
});

test('a key type exectl does not support: shown, but malformed (exit 2)', () => {
  const keyBlob = Buffer.concat([sshString('ssh-dss'), sshString(Buffer.alloc(8, 1))]);
  const sigblob = encodeSshSig({
    publicKey: keyBlob,
    namespace: 'v0@localhost',
    reserved: Buffer.alloc(0),
    hashAlgorithm: 'sha512',
    signature: Buffer.concat([sshString('ssh-dss'), sshString(Buffer.alloc(40))]),
  });
  const { report, failure } = inspectToken(joinSvc0(Buffer.from('{}'), sigblob), NOW);
  assert.deepEqual(report.signer, { type: null, fingerprint: fingerprintOf(keyBlob) });
  assert.deepEqual(
    [report.valid, report.reason, report.error],
    [false, 'unsupported_key', 'invalid token: unsupported key type'],
  );
  assert.equal(failure?.structural, true);
});

/** Whatever the input, inspect answers with a consistent report and never throws. */
function assertConsistent(token: string, keys?: TrustedKey[]): void {
  const { report, failure } = inspectToken(token, NOW, keys);
  if (failure === undefined) {
    assert.ok(report.valid === true || (report.kind === 'svc1' && report.valid === null));
  } else {
    assert.deepEqual(
      [report.valid, report.reason, report.error],
      [false, failure.reason, failure.message],
    );
  }
  assert.equal(report.size, Buffer.byteLength(token));
}

test('any string is inspected without throwing', () => {
  fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => assertConsistent(text)));
  const part = fc
    .base64String()
    .map((s) => s.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'));
  fc.assert(fc.property(part, part, (a, b) => assertConsistent(`svc0.${a}.${b}`, trusted)));
});

test('a real token with any one character changed is inspected without throwing', async () => {
  const token = await mint(`{"exp":${NOW + 60},"cmds":["whoami"],"ctx":{"a":[1,{"b":null}]}}`);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=';
  fc.assert(
    fc.property(fc.nat({ max: token.length - 1 }), fc.constantFrom(...alphabet), (i, c) => {
      assertConsistent(token.slice(0, i) + c + token.slice(i + 1), trusted);
    }),
  );
});
