import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeSvc0Unverified } from '../../../src/token/decode.js';
import { joinSvc0, splitSvc0 } from '../../../src/token/format.js';
import { mintSvc0 } from '../../../src/token/mint.js';
import { encodeSshSig, parseSshSig } from '../../../src/token/sshsig.js';
import { sshString } from '../../../src/token/ssh-wire.js';
import type { Signer } from '../../../src/token/keys.js';
import { createMemorySigner } from '../../helpers/signers.js';

const NS = 'v0@localhost';

/** Wraps a signer to count how often it is asked to sign. */
function counting(signer: Signer): Signer & { calls: number } {
  const wrapped = {
    publicKey: signer.publicKey,
    source: signer.source,
    calls: 0,
    sign: (data: Uint8Array) => {
      wrapped.calls++;
      return signer.sign(data);
    },
  };
  return wrapped;
}

describe('mintSvc0', () => {
  test('signs exactly the payload bytes, as sha512 SSHSIG for the namespace', async () => {
    const signer = createMemorySigner('ed25519');
    const payload = '{"cmds":["ssh-key list"],"ctx":{"b":1,  "a":"é"}}';
    const token = await mintSvc0(payload, signer, NS);
    const { payload: bytes, sigblob } = splitSvc0(token);
    assert.equal(bytes.toString('utf8'), payload);
    const sig = parseSshSig(sigblob);
    assert.deepEqual(
      { ...sig, signature: undefined },
      {
        publicKey: signer.publicKey.blob,
        namespace: NS,
        reserved: Buffer.alloc(0),
        hashAlgorithm: 'sha512',
        signature: undefined,
        signatureAlgorithm: 'ssh-ed25519',
      },
    );
  });

  const invalid: [string, string, string][] = [
    ['an unknown field', '{"foo":1}', 'invalid token: unknown field "foo" in permissions'],
    [
      'trailing whitespace',
      '{} ',
      'invalid token: permissions JSON has leading or trailing whitespace',
    ],
    ['a float exp', '{"exp":1.5e9}', 'invalid token: exp must be an integer'],
    ['a lone surrogate', '{"ctx":"\uD800"}', 'invalid token: permissions JSON is not valid UTF-8'],
  ];
  for (const [name, payload, message] of invalid) {
    test(`refuses ${name} before signing: ${message}`, async () => {
      const signer = counting(createMemorySigner('ed25519'));
      await assert.rejects(mintSvc0(payload, signer, NS), {
        name: 'TokenError',
        reason: 'bad_permissions',
        message,
      });
      assert.equal(signer.calls, 0);
    });
  }

  test('refuses a payload that would make the token exceed 8192 bytes', async () => {
    const payload = `{"cmds":[${Array.from({ length: 700 }, () => '"whoami"').join(',')}]}`;
    await assert.rejects(mintSvc0(payload, createMemorySigner('ed25519'), NS), {
      reason: 'too_large',
      message: 'invalid token: exceeds 8192 bytes',
    });
  });

  test('refuses a signature that does not verify with the signer key', async () => {
    const real = createMemorySigner('ed25519');
    const liar: Signer = {
      publicKey: createMemorySigner('ed25519').publicKey,
      source: 'ssh-agent',
      sign: (data) => real.sign(data),
    };
    await assert.rejects(mintSvc0('{}', liar, NS), {
      name: 'ExectlError',
      code: 'key_error',
      message: 'the signature made with ssh-agent does not verify',
    });
  });
});

describe('decodeSvc0Unverified', () => {
  test('shows what a token claims without checking the signature', async () => {
    const signer = createMemorySigner('ecdsa-384');
    const token = await mintSvc0('{"exp":1900000000}', signer, 'v0@web.localhost');
    const decoded = decodeSvc0Unverified(token);
    assert.equal(decoded.payload.toString(), '{"exp":1900000000}');
    assert.deepEqual(decoded.permissions, { exp: 1900000000 });
    assert.equal(decoded.signature.namespace, 'v0@web.localhost');
    assert.equal(decoded.signature.signatureAlgorithm, 'ecdsa-sha2-nistp384');
    assert.equal(decoded.signer?.fingerprint, signer.publicKey.fingerprint);
    assert.equal(decoded.signer?.type, 'ecdsa-sha2-nistp384');
    assert.equal(decoded.sizeBytes, Buffer.byteLength(token));

    // A forged signature still decodes: this function decides nothing.
    const sig = parseSshSig(splitSvc0(token).sigblob);
    const forged = encodeSshSig({
      ...sig,
      signature: Buffer.concat([sshString('x'), sshString('y')]),
    });
    assert.equal(
      decodeSvc0Unverified(joinSvc0(splitSvc0(token).payload, forged)).signature.signatureAlgorithm,
      'x',
    );
  });

  test('reports no signer for a key type exectl does not support', () => {
    const dss = Buffer.concat([sshString('ssh-dss'), sshString(Buffer.alloc(20, 1))]);
    const blob = encodeSshSig({
      publicKey: dss,
      namespace: 'v0@localhost',
      reserved: Buffer.alloc(0),
      hashAlgorithm: 'sha512',
      signature: Buffer.concat([sshString('ssh-dss'), sshString(Buffer.alloc(40))]),
    });
    const decoded = decodeSvc0Unverified(joinSvc0(Buffer.from('{}'), blob));
    assert.equal(decoded.signer, undefined);
    assert.deepEqual(decoded.signature.publicKey, dss);
  });

  test('throws the structural TokenError of the first broken part', () => {
    assert.throws(() => decodeSvc0Unverified('svc0.e30.AAAA'), {
      reason: 'bad_signature_blob',
      message: 'invalid token: malformed signature',
    });
    assert.throws(
      () => decodeSvc0Unverified('svc0.' + Buffer.from('[]').toString('base64url') + '.AAAA'),
      {
        reason: 'bad_permissions',
        message: 'invalid token: invalid permissions JSON',
      },
    );
  });
});
