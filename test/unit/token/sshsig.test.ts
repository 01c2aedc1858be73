import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { TokenError } from '../../../src/token/errors.js';
import {
  armorSshSig,
  dearmorSshSig,
  encodeSshSig,
  parseSshSig,
  signedData,
  type SshSignature,
} from '../../../src/token/sshsig.js';
import { sshString, sshUint32 } from '../../../src/token/ssh-wire.js';

const KEY = Buffer.concat([sshString('ssh-ed25519'), sshString(Buffer.alloc(32, 7))]);
const WIRE_SIG = Buffer.concat([sshString('ssh-ed25519'), sshString(Buffer.alloc(64, 9))]);

/** A structurally valid blob built field by field, so each test can break one field. */
function blob(fields: Partial<Record<string, Buffer>> = {}): Buffer {
  return Buffer.concat([
    fields.magic ?? Buffer.from('SSHSIG'),
    fields.version ?? sshUint32(1),
    fields.publicKey ?? sshString(KEY),
    fields.namespace ?? sshString('v0@localhost'),
    fields.reserved ?? sshString(''),
    fields.hash ?? sshString('sha512'),
    fields.signature ?? sshString(WIRE_SIG),
    fields.trailing ?? Buffer.alloc(0),
  ]);
}

const MALFORMED = {
  name: 'TokenError',
  reason: 'bad_signature_blob',
  message: 'invalid token: malformed signature',
};

describe('parseSshSig', () => {
  test('parses every field of a valid blob', () => {
    assert.deepEqual(parseSshSig(blob()), {
      publicKey: KEY,
      namespace: 'v0@localhost',
      reserved: Buffer.alloc(0),
      hashAlgorithm: 'sha512',
      signature: WIRE_SIG,
      signatureAlgorithm: 'ssh-ed25519',
    });
    assert.equal(parseSshSig(blob({ hash: sshString('sha256') })).hashAlgorithm, 'sha256');
  });

  const broken: [string, Buffer][] = [
    ['an empty blob', Buffer.alloc(0)],
    ['a wrong magic', blob({ magic: Buffer.from('SSHSIH') })],
    ['a lower-case magic', blob({ magic: Buffer.from('sshsig') })],
    ['version 0', blob({ version: sshUint32(0) })],
    ['version 2', blob({ version: sshUint32(2) })],
    ['a trailing byte', blob({ trailing: Buffer.of(0) })],
    ['hash sha1', blob({ hash: sshString('sha1') })],
    ['hash SHA512 (case matters)', blob({ hash: sshString('SHA512') })],
    ['hash sha384', blob({ hash: sshString('sha384') })],
    ['an empty signature', blob({ signature: sshString('') })],
    ['a signature whose algorithm length overruns', blob({ signature: sshString(sshUint32(99)) })],
    ['a namespace that is not UTF-8', blob({ namespace: sshString(Buffer.of(0xc3, 0x28)) })],
    ['a string length past the end', blob({ signature: sshUint32(1000) })],
    ['a blob cut after the magic', Buffer.from('SSHSIG')],
  ];
  for (const [name, bytes] of broken) {
    test(`refuses ${name}`, () => {
      assert.throws(() => parseSshSig(bytes), MALFORMED);
    });
  }

  test('refuses a blob cut at any byte', () => {
    const whole = blob();
    for (let len = 0; len < whole.length; len++) {
      assert.throws(() => parseSshSig(whole.subarray(0, len)), MALFORMED);
    }
  });

  test('arbitrary bytes throw only TokenError (property)', () => {
    const prefixes = [
      Buffer.alloc(0),
      Buffer.from('SSHSIG'),
      Buffer.concat([Buffer.from('SSHSIG'), sshUint32(1)]),
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...prefixes),
        fc.uint8Array({ maxLength: 300 }),
        (prefix, rest) => {
          try {
            parseSshSig(Buffer.concat([prefix, rest]));
          } catch (error) {
            assert.ok(error instanceof TokenError, String(error));
            assert.equal(error.reason, 'bad_signature_blob');
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('encodeSshSig', () => {
  test('builds exactly the layout of PROTOCOL.sshsig', () => {
    const { signatureAlgorithm: _, ...fields } = parseSshSig(blob());
    assert.deepEqual(encodeSshSig(fields), blob());
  });

  test('is the inverse of parseSshSig (property)', () => {
    const field = fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b));
    const sig = fc.record({
      publicKey: field,
      namespace: fc.string({ unit: 'grapheme', maxLength: 40 }),
      reserved: field,
      hashAlgorithm: fc.constantFrom('sha256' as const, 'sha512' as const),
      algorithm: fc.string({ maxLength: 30 }),
      raw: field,
    });
    fc.assert(
      fc.property(sig, ({ algorithm, raw, ...rest }) => {
        const signature = Buffer.concat([sshString(algorithm), sshString(raw)]);
        const parsed: SshSignature = parseSshSig(encodeSshSig({ ...rest, signature }));
        assert.deepEqual(parsed, { ...rest, signature, signatureAlgorithm: algorithm });
      }),
    );
  });
});

describe('signedData', () => {
  test('is "SSHSIG" | string namespace | string "" | string hash | string H(message)', () => {
    const message = Buffer.from('{"exp":1900000000}');
    for (const hash of ['sha256', 'sha512'] as const) {
      const digest = createHash(hash).update(message).digest();
      const expected = Buffer.concat([
        Buffer.from('SSHSIG'),
        Buffer.from([0, 0, 0, 12]),
        Buffer.from('v0@localhost'),
        Buffer.from([0, 0, 0, 0]),
        Buffer.from([0, 0, 0, 6]),
        Buffer.from(hash),
        Buffer.from([0, 0, 0, digest.length]),
        digest,
      ]);
      assert.deepEqual(signedData('v0@localhost', hash, message), expected);
    }
    // The hash is length-prefixed: 6 + 16 + 4 + 10 + 4 + 64 bytes for sha512.
    assert.equal(signedData('v0@localhost', 'sha512', message).length, 104);
    assert.equal(signedData('v0@localhost', 'sha256', message).length, 72);
  });
});

describe('armorSshSig / dearmorSshSig', () => {
  test('wraps base64 at 70 columns between the BEGIN and END lines, LF only', () => {
    const bytes = Buffer.alloc(200, 0xab);
    const text = armorSshSig(bytes);
    const lines = text.split('\n');
    assert.equal(lines[0], '-----BEGIN SSH SIGNATURE-----');
    assert.equal(lines.at(-2), '-----END SSH SIGNATURE-----');
    assert.equal(lines.at(-1), '');
    const body = lines.slice(1, -2);
    assert.deepEqual(
      body.map((l) => l.length),
      [70, 70, 70, 58],
    );
    assert.equal(body.join(''), bytes.toString('base64'));
    assert.ok(!text.includes('\r'));
  });

  test('dearmor reverses armor for any bytes (property), also with CRLF line ends', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const armored = armorSshSig(bytes);
        assert.deepEqual(dearmorSshSig(armored), Buffer.from(bytes));
        assert.deepEqual(dearmorSshSig(armored.replace(/\n/g, '\r\n')), Buffer.from(bytes));
      }),
    );
  });

  const bad: [string, string][] = [
    ['no BEGIN line', 'AAAA\n-----END SSH SIGNATURE-----\n'],
    ['no END line', '-----BEGIN SSH SIGNATURE-----\nAAAA\n'],
    ['a wrong label', '-----BEGIN SSH SIGNATUR-----\nAAAA\n-----END SSH SIGNATURE-----\n'],
    ['base64url characters', '-----BEGIN SSH SIGNATURE-----\nAA-_\n-----END SSH SIGNATURE-----\n'],
    [
      'non-canonical trailing bits',
      '-----BEGIN SSH SIGNATURE-----\nAB==\n-----END SSH SIGNATURE-----\n',
    ],
    ['missing padding', '-----BEGIN SSH SIGNATURE-----\nAA\n-----END SSH SIGNATURE-----\n'],
    ['empty text', ''],
  ];
  for (const [name, text] of bad) {
    test(`dearmor refuses ${name}`, () => {
      assert.throws(() => dearmorSshSig(text), MALFORMED);
    });
  }
});
