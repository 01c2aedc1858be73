import assert from 'node:assert/strict';
import { sign } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  fingerprintOf,
  parsePublicKey,
  publicKeyFromBlob,
  verifyWireSignature,
} from '../../../src/token/keys.js';
import { SshReader, sshString } from '../../../src/token/ssh-wire.js';
import { wireSignature } from '../../../src/token/wire-signature.js';
import { createMemorySigner } from '../../helpers/signers.js';

/** Public keys and fingerprints exactly as ssh-keygen 9.2 wrote and listed them (-lf). */
const FIXTURES = [
  {
    line: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPTCLoEjAJ0fHtRv5htuap14UgJPJLEdDVXBdlDVz5Qh fixture ed25519',
    type: 'ssh-ed25519',
    bits: 256,
    fingerprint: 'SHA256:Y23dL/dvH89s/WLG7E3lMfc3pcbBdVnX8Ie6oR5Or8w',
  },
  {
    line: 'ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBNzM8paGUb4pA9DY9qVffm94c87R+QOs5x+A2ZfMuYdy7An3tz2XvSRL6L8m6PluPgzsyXZC9uUYNOAWsu9JX5Y= fixture ecdsab256',
    type: 'ecdsa-sha2-nistp256',
    bits: 256,
    fingerprint: 'SHA256:nrF86Yp7o91hT104zeh0v+UC0r2wYs7S0kQLEnETh6M',
  },
  {
    line: 'ecdsa-sha2-nistp384 AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzODQAAABhBCz7t4YksxLb4FU8FzFWoUIlkdtHlgnsKIXIDEFPr2HB0qTjIsVn3WNpYzCV7QClHhpYum7StwmUSPYDq4pDw+hdMp0PoWjBS5ByGZGb0KjTnTHDVSWhLp+q0otNFDGWyA== fixture ecdsab384',
    type: 'ecdsa-sha2-nistp384',
    bits: 384,
    fingerprint: 'SHA256:QGZdvuEw5wgXFUoMmp4qztWOzhZV5nj4zvVW9rUXA/I',
  },
  {
    line: 'ecdsa-sha2-nistp521 AAAAE2VjZHNhLXNoYTItbmlzdHA1MjEAAAAIbmlzdHA1MjEAAACFBABjW6jPtUa00kuOb9/P3ShzTlGsMtSIb40ohvk/+pOygIYGfYyd8G3nZOyOpN5Id+lvIGxgAc4vMJPpbXnyPby+rwHIvsFjmKWAQwpt2blNxGBJoKnNXiZVkAdATfCivvgLKg89AFD34VGcNmO+7WxTx+EafSg/bAXEF/a+cio6MFfaVQ== fixture ecdsab521',
    type: 'ecdsa-sha2-nistp521',
    bits: 521,
    fingerprint: 'SHA256:20tbKC4LqBc3onrFJ7CKbSrHij+SDOKz04GCMDFH/Fk',
  },
  {
    line: 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCzLYd4tXtAuPT58RMrq3+j0YThVTnsvgIv1buhUqLXKqYtKQgd0zS+XL8u/QB3xyjzex1sDjxUeiLG8mcIN/ghdZcUXavOzw3a6cOeWw49by7HiRYvz9qWPusJAHWk1tBwqDlRbEsk+2/bj26C0lI1RxSSgaIXVJvCZG7jQl4I+Mqz5AB6AgK7ci+Y4xfixHzdowMMd5bRIDmnoC15Lw7rouBX4S+H76iBDUPrT7WSo8wyUK0OAQ0hBWJOug4wtu/pg/6LDLSAA0umyCSr0rxIrz1pJlR2UsgQvJ9xhbZQAE5vtuO19egh+Ijpy+B29JHjK4ZVHGRuph8kJCEO3eL/ fixture rsab2048',
    type: 'ssh-rsa',
    bits: 2048,
    fingerprint: 'SHA256:ZyuuZEr/5UgCpD6i/Ftl9OVr9wUbUE5tMGa4lik4nbM',
  },
];
const RSA_1024 =
  'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDAevmQuXC5onEsXazqz9UHci2xACNM1lglLwV8GZs1gk40JpyEIJdtT+dA+iKcuXZurO+fn9Xwpp8LgIZol8zcQvDz9m6LX4XruYOATQmQxf1EWXjdU8SRYJV/KucjWaSAk3dHWsI0RnwTl+r6GGt5rK76JymVFIkou9trDsIGIw== fixture rsab1024';
const DSA =
  'ssh-dss AAAAB3NzaC1kc3MAAACBAKeznRcfOVvwAI53Lwyh0imCNqmZiauw82S/FSxwAVIW0E3Us/XZHYySsXDzOJ44Pcdu7obW7n8mpJMOM2G2HUYBKKMUpu9KJa2YlTHTzRo37WVzWBA/eNaXaa9e/di9YfNKQFo/gtj726odeI0BYZMcxblQA+S9IxBTec+6XXX7AAAAFQDHCyhSAKIw1w6BWAzTL9Lym9xmiQAAAIBrnWS8V/TkjlauouksbIbSBmCjAhqkeZ6RdycVi2QqQaYEdnu0AmkhZSAYkd6yCGAHP3TX6iZx0TXsrvQQadokeiNbc3ctVHxryYQG7LWewo5Q+HCNO93nGL78lXzak4dXT7hkjzA2Wr10QhIcZKxoqUxK3BK4YiXTpri4Q6lfpgAAAIBSZNwVCtI3APBdfko7JFhV3ZS9vJiGpbjR5CgV2idJR4Qgu/GICU64N8C1jkeQse/Lgj7qjj3o6m9Mx0XWDp6oIYfha7WDT0xPLWTeYnrRJvYTZhMiL/Cd/xpdfMbMD5skN5vlrhjhBLMMkU7VrlbtsfS0+vsDwTkA/1z6W1Tepg== fixture dsa';

const ed25519Blob = (): Buffer => Buffer.from(FIXTURES[0]!.line.split(' ')[1]!, 'base64');
const p256Blob = (): Buffer => Buffer.from(FIXTURES[1]!.line.split(' ')[1]!, 'base64');
const line = (type: string, blob: Uint8Array): string =>
  `${type} ${Buffer.from(blob).toString('base64')}`;
const keyError = (message: string) => ({ name: 'ExectlError', code: 'key_error', message });

describe('parsePublicKey', () => {
  for (const f of FIXTURES) {
    test(`reads ${f.type} with ssh-keygen's fingerprint and size`, () => {
      const key = parsePublicKey(f.line + '\n');
      assert.equal(key.type, f.type);
      assert.equal(key.bits, f.bits);
      assert.equal(key.fingerprint, f.fingerprint);
      assert.equal(fingerprintOf(key.blob), f.fingerprint);
      assert.equal(key.comment, f.line.split(' ').slice(2).join(' '));
      assert.equal(key.toOpenSsh(), f.line);
    });
  }

  test('keeps a comment with spaces and omits an absent one', () => {
    const [type, base64] = FIXTURES[0]!.line.split(' ') as [string, string];
    assert.equal(parsePublicKey(`${type}  ${base64}   me @ my laptop `).comment, 'me @ my laptop');
    const bare = parsePublicKey(`${type} ${base64}`);
    assert.equal(bare.comment, '');
    assert.equal(bare.toOpenSsh(), `${type} ${base64}`);
  });

  const ed = ed25519Blob();
  const edKey = ed.subarray(ed.length - 32);
  const p256 = p256Blob();
  const point = p256.subarray(p256.length - 65);
  const invalid: [string, string, string][] = [
    ['an empty line', '', 'not an SSH public key'],
    ['a type alone', 'ssh-ed25519', 'not an SSH public key'],
    ['base64 with junk', 'ssh-ed25519 AAAA$$$$', 'not an SSH public key'],
    ['non-canonical base64', 'ssh-ed25519 AB==', 'not an SSH public key'],
    ['a truncated blob', line('ssh-ed25519', ed.subarray(0, 30)), 'invalid SSH public key'],
    [
      'a blob with a trailing byte',
      line('ssh-ed25519', Buffer.concat([ed, Buffer.of(0)])),
      'invalid SSH public key',
    ],
    [
      'a 31-byte ed25519 key',
      line('ssh-ed25519', Buffer.concat([sshString('ssh-ed25519'), sshString(edKey.subarray(1))])),
      'invalid SSH public key',
    ],
    [
      'a curve name that differs from the type',
      line(
        'ecdsa-sha2-nistp256',
        Buffer.concat([sshString('ecdsa-sha2-nistp256'), sshString('nistp384'), sshString(point)]),
      ),
      'invalid SSH public key',
    ],
    [
      'a compressed EC point',
      line(
        'ecdsa-sha2-nistp256',
        Buffer.concat([
          sshString('ecdsa-sha2-nistp256'),
          sshString('nistp256'),
          sshString(Buffer.concat([Buffer.of(2), point.subarray(1, 33)])),
        ]),
      ),
      'invalid SSH public key',
    ],
    [
      'a type word that is not the blob type',
      line('ssh-rsa', ed),
      'SSH public key says "ssh-rsa" but holds a ssh-ed25519 key',
    ],
    ['a DSA key', DSA, 'unsupported SSH key type "ssh-dss"'],
    ['an RSA key of 1024 bits', RSA_1024, 'RSA key of 1024 bits is too small'],
    [
      'a certificate',
      line(
        'ssh-ed25519-cert-v01@openssh.com',
        Buffer.concat([sshString('ssh-ed25519-cert-v01@openssh.com'), sshString(edKey)]),
      ),
      'unsupported SSH key type "ssh-ed25519-cert-v01@openssh.com"',
    ],
  ];
  for (const [name, text, message] of invalid) {
    test(`refuses ${name}: ${message}`, () => {
      assert.throws(() => parsePublicKey(text), keyError(message));
    });
  }
});

describe('publicKeyFromBlob', () => {
  test('keeps its own copy of the blob and takes the comment given', () => {
    const blob = ed25519Blob();
    const key = publicKeyFromBlob(blob, 'agent key');
    blob.fill(0);
    assert.equal(key.fingerprint, FIXTURES[0]!.fingerprint);
    assert.equal(key.comment, 'agent key');
    assert.equal(key.toOpenSsh(), FIXTURES[0]!.line.replace('fixture ed25519', 'agent key'));
  });
});

describe('verifyWireSignature', () => {
  const data = Buffer.from('signed data');
  for (const kind of ['ed25519', 'ecdsa-256', 'ecdsa-384', 'ecdsa-521', 'rsa-2048'] as const) {
    test(`${kind}: true for a good signature, false for other data, key or label`, async () => {
      const signer = createMemorySigner(kind);
      const other = createMemorySigner(kind);
      const wire = await signer.sign(data);
      assert.equal(verifyWireSignature(signer.publicKey, data, wire), true);
      assert.equal(verifyWireSignature(signer.publicKey, Buffer.from('signed datA'), wire), false);
      assert.equal(verifyWireSignature(other.publicKey, data, wire), false);
      const reader = new SshReader(wire, () => new Error('bad'));
      reader.text();
      const raw = reader.string();
      assert.equal(
        verifyWireSignature(signer.publicKey, data, wireSignature('ssh-dss', raw)),
        false,
      );
      assert.equal(
        verifyWireSignature(signer.publicKey, data, Buffer.concat([wire, Buffer.of(0)])),
        false,
      );
    });

    test(`${kind}: never throws, whatever the bytes (property)`, async () => {
      const signer = createMemorySigner(kind);
      const wire = await signer.sign(data);
      fc.assert(
        fc.property(
          fc.uint8Array({ maxLength: 600 }),
          fc.nat(wire.length - 1),
          fc.integer({ min: 1, max: 255 }),
          (junk, at, xor) => {
            assert.equal(verifyWireSignature(signer.publicKey, data, junk), false);
            const flipped = Buffer.from(wire);
            flipped[at]! ^= xor;
            assert.equal(verifyWireSignature(signer.publicKey, data, flipped), false);
          },
        ),
        { numRuns: kind === 'rsa-2048' ? 100 : 300 },
      );
    });
  }

  test('ECDSA: r and s of every length verify (sign-bit padding and short values)', async () => {
    for (const kind of ['ecdsa-256', 'ecdsa-521'] as const) {
      const signer = createMemorySigner(kind);
      const lengths = new Set<number>();
      for (let i = 0; i < 300; i++) {
        const message = Buffer.from(`message ${i}`);
        const wire = await signer.sign(message);
        assert.equal(verifyWireSignature(signer.publicKey, message, wire), true, `signature ${i}`);
        const body = new SshReader(wire, () => new Error('bad'));
        body.text();
        lengths.add(new SshReader(body.string(), () => new Error('bad')).string().length);
      }
      // With and without the 0x00 sign byte: both encodings were exercised.
      assert.ok(lengths.size >= 2, `${kind} r lengths ${[...lengths].join(',')}`);
    }
  });

  test('RSA: accepts rsa-sha2-256, refuses ssh-rsa (SHA-1) and a mislabelled hash', () => {
    const signer = createMemorySigner('rsa-2048');
    const sha256 = sign('sha256', data, signer.privateKey);
    const sha1 = sign('sha1', data, signer.privateKey);
    const sha512 = sign('sha512', data, signer.privateKey);
    assert.equal(
      verifyWireSignature(signer.publicKey, data, wireSignature('rsa-sha2-256', sha256)),
      true,
    );
    assert.equal(
      verifyWireSignature(signer.publicKey, data, wireSignature('ssh-rsa', sha1)),
      false,
    );
    assert.equal(
      verifyWireSignature(signer.publicKey, data, wireSignature('rsa-sha2-256', sha512)),
      false,
    );
  });

  test('RSA: a short S is left-padded, a longer one refused', () => {
    const signer = createMemorySigner('rsa-2048');
    // About one signature in 256 starts with a zero byte; find one to drop it.
    let message = Buffer.alloc(0);
    let s = Buffer.alloc(0);
    for (let i = 0; s[0] !== 0 || s.length === 0; i++) {
      message = Buffer.from(`short ${i}`);
      s = sign('sha512', message, signer.privateKey);
    }
    assert.equal(
      verifyWireSignature(signer.publicKey, message, wireSignature('rsa-sha2-512', s.subarray(1))),
      true,
    );
    const longer = Buffer.concat([Buffer.of(0), s]);
    assert.equal(
      verifyWireSignature(signer.publicKey, message, wireSignature('rsa-sha2-512', longer)),
      false,
    );
  });
});
