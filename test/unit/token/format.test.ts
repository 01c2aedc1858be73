// The svc0/svc1 wire format: strict unpadded base64url, the 8192-byte cap, the split, svc1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenError } from '../../../src/token/errors.js';
import {
  MAX_TOKEN_BYTES,
  decodeBase64UrlStrict,
  encodeBase64Url,
  isWellFormedSvc1,
  joinSvc0,
  newSvc1,
  splitSvc0,
  tokenKind,
} from '../../../src/token/format.js';

/** Runs `fn` and returns its TokenError as `reason: message`, or fails when nothing is thrown. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof TokenError, `not a TokenError: ${String(error)}`);
    return `${error.reason}: ${error.message}`;
  }
  assert.fail('expected a TokenError');
}

// RFC 4648 §10 test vectors, unpadded, plus the two characters that differ from base64.
const VECTORS: [string | number[], string][] = [
  ['', ''],
  ['f', 'Zg'],
  ['fo', 'Zm8'],
  ['foo', 'Zm9v'],
  ['foob', 'Zm9vYg'],
  ['fooba', 'Zm9vYmE'],
  ['foobar', 'Zm9vYmFy'],
  [[0xfb, 0xff], '-_8'],
  [[0x41], 'QQ'],
];

for (const [input, text] of VECTORS) {
  test(`base64url of ${JSON.stringify(input)} is "${text}" both ways`, () => {
    const bytes = Buffer.from(input as string);
    assert.equal(encodeBase64Url(bytes), text);
    assert.deepEqual(decodeBase64UrlStrict(text, 'payload'), bytes);
  });
}

test('encodeBase64Url encodes only the view of a shared buffer', () => {
  const view = new Uint8Array([0, 1, 2, 0xfb, 0xff, 9]).subarray(3, 5);
  assert.equal(encodeBase64Url(view), '-_8');
});

const NOT_BASE64URL: [string, string][] = [
  ['padding', 'Zg=='],
  ['one padding character', 'Zm8='],
  ['padding on a full group', 'Zm9v===='],
  ['standard alphabet +', '+_8'],
  ['standard alphabet /', '-/8'],
  ['inner space', 'Zm 9v'],
  ['leading space', ' Zm9v'],
  ['trailing LF', 'Zm9v\n'],
  ['tab', 'Zm9v\t'],
  ['non-canonical trailing bits in 2 characters', 'QR'],
  ['non-canonical trailing bits in 3 characters', 'Zm9'],
  ['length 1 mod 4', 'A'],
  ['length 5', 'AAAAA'],
  ['a dot', 'Zg.Zg'],
  ['non-ASCII letter', 'Zé'],
  ['NUL', 'Zg\0'],
];

for (const [name, text] of NOT_BASE64URL) {
  test(`decodeBase64UrlStrict refuses ${name}`, () => {
    assert.equal(
      refusal(() => decodeBase64UrlStrict(text, 'signature')),
      'bad_base64url: invalid token: signature is not valid base64url',
    );
  });
}

test('decodeBase64UrlStrict names the part it was given', () => {
  assert.equal(
    refusal(() => decodeBase64UrlStrict('Zg=', 'payload')),
    'bad_base64url: invalid token: payload is not valid base64url',
  );
});

test('MAX_TOKEN_BYTES is 8192', () => {
  assert.equal(MAX_TOKEN_BYTES, 8192);
});

test('joinSvc0 writes svc0.<payload>.<sigblob> and splitSvc0 reads it back', () => {
  const token = joinSvc0(Buffer.from('{}'), Buffer.from([1, 2, 3]));
  assert.equal(token, 'svc0.e30.AQID');
  assert.deepEqual(splitSvc0(token), {
    payload: Buffer.from('{}'),
    sigblob: Buffer.from([1, 2, 3]),
  });
});

// 6136 bytes encode to 8182 characters and 3 bytes to 4: 5 + 8182 + 1 + 4 = 8192 exactly.
const FULL_PART = 6136;

for (const side of ['payload', 'sigblob'] as const) {
  const parts = (big: number): [Buffer, Buffer] => {
    const large = Buffer.alloc(big, 0xa5);
    const small = Buffer.from([1, 2, 3]);
    return side === 'payload' ? [large, small] : [small, large];
  };

  test(`joinSvc0 accepts exactly 8192 bytes with a large ${side}`, () => {
    const token = joinSvc0(...parts(FULL_PART));
    assert.equal(token.length, 8192);
    const [payload, sigblob] = parts(FULL_PART);
    assert.deepEqual(splitSvc0(token), { payload, sigblob });
  });

  test(`joinSvc0 refuses 8193 bytes with a large ${side}`, () => {
    assert.equal(
      refusal(() => joinSvc0(...parts(FULL_PART + 1))),
      'too_large: invalid token: exceeds 8192 bytes',
    );
  });
}

test('splitSvc0 accepts a token of exactly 8192 bytes and refuses 8193', () => {
  const token = joinSvc0(Buffer.alloc(FULL_PART), Buffer.from([1, 2, 3]));
  assert.equal(Buffer.byteLength(token), 8192);
  assert.equal(splitSvc0(token).payload.length, FULL_PART);
  assert.equal(
    refusal(() => splitSvc0(`${token}A`)),
    'too_large: invalid token: exceeds 8192 bytes',
  );
});

test('splitSvc0 counts UTF-8 bytes, not characters', () => {
  // 5 + 3 + 2 * 4092 = 8192 bytes in 4100 characters: within the cap, then a bad signature.
  const atCap = `svc0.Zg.${'é'.repeat(4092)}`;
  assert.equal(Buffer.byteLength(atCap), 8192);
  assert.equal(
    refusal(() => splitSvc0(atCap)),
    'bad_base64url: invalid token: signature is not valid base64url',
  );
  // One more 2-byte character: 8194 bytes in only 4101 characters.
  assert.equal(
    refusal(() => splitSvc0(`${atCap}é`)),
    'too_large: invalid token: exceeds 8192 bytes',
  );
});

test('size is checked before the prefix', () => {
  assert.equal(
    refusal(() => splitSvc0('x'.repeat(8193))),
    'too_large: invalid token: exceeds 8192 bytes',
  );
});

const MALFORMED: [string, string][] = [
  ['empty', ''],
  ['prefix without dot', 'svc0'],
  ['prefix only', 'svc0.'],
  ['no dot after the prefix', 'svc0.e30'],
  ['empty payload', 'svc0..AQID'],
  ['empty signature', 'svc0.e30.'],
  ['both parts empty', 'svc0..'],
  ['svc1 prefix', 'svc1.e30.AQID'],
  ['upper-case prefix', 'SVC0.e30.AQID'],
  ['leading space', ' svc0.e30.AQID'],
  ['colon instead of dot', 'svc0:e30.AQID'],
];

for (const [name, token] of MALFORMED) {
  test(`splitSvc0 calls ${name} malformed`, () => {
    assert.equal(
      refusal(() => splitSvc0(token)),
      'malformed: invalid token: malformed',
    );
  });
}

const BAD_PARTS: [string, string, string][] = [
  ['split at the first dot', 'svc0.e30.AQ.ID', 'signature'],
  ['payload checked before signature', 'svc0.e30=.AQID=', 'payload'],
  ['padded signature', 'svc0.e30.AQI=', 'signature'],
  ['padded payload', 'svc0.Zg==.AQID', 'payload'],
  ['standard alphabet in the payload', 'svc0.+/8.AQID', 'payload'],
  ['non-canonical signature bits', 'svc0.e30.QR', 'signature'],
  ['whitespace in the signature', 'svc0.e30.AQID ', 'signature'],
];

for (const [name, token, part] of BAD_PARTS) {
  test(`splitSvc0: ${name}`, () => {
    assert.equal(
      refusal(() => splitSvc0(token)),
      `bad_base64url: invalid token: ${part} is not valid base64url`,
    );
  });
}

test('newSvc1 gives svc1. and 26 base32 characters that isWellFormedSvc1 accepts', () => {
  for (let i = 0; i < 100; i += 1) {
    const token = newSvc1();
    assert.match(token, /^svc1\.[A-Z2-7]{26}$/);
    assert.equal(isWellFormedSvc1(token), true);
    assert.equal(tokenKind(token), 'svc1');
  }
});

test('newSvc1 never repeats and uses the whole alphabet (10000 tokens)', () => {
  const tokens = Array.from({ length: 10000 }, newSvc1);
  assert.equal(new Set(tokens).size, tokens.length);
  // Each of the 25 full characters carries 5 random bits; the last carries 3 and two zero bits.
  const full = new Set(tokens.flatMap((t) => [...t.slice(5, 30)]));
  const last = new Set(tokens.map((t) => t.slice(30)));
  assert.deepEqual([...full].sort().join(''), '234567ABCDEFGHIJKLMNOPQRSTUVWXYZ');
  assert.deepEqual([...last].sort().join(''), '4AEIMQUY');
});

const SVC1_SHAPES: [string, string, boolean][] = [
  ['all A', `svc1.${'A'.repeat(26)}`, true],
  ['mixed alphabet', 'svc1.ABCDEFGHIJKLMNOPQRSTUVWXY4', true],
  ['25 characters', `svc1.${'A'.repeat(25)}`, false],
  ['27 characters', `svc1.${'A'.repeat(27)}`, false],
  ['lower case', `svc1.${'a'.repeat(26)}`, false],
  ['digit 0 outside base32', `svc1.0${'A'.repeat(25)}`, false],
  ['digit 1 outside base32', `svc1.1${'A'.repeat(25)}`, false],
  ['digit 8 outside base32', `svc1.8${'A'.repeat(25)}`, false],
  ['padding', `svc1.${'A'.repeat(24)}==`, false],
  ['non-zero trailing bits', `svc1.${'A'.repeat(25)}B`, false],
  ['svc0 prefix', `svc0.${'A'.repeat(26)}`, false],
  ['upper-case prefix', `SVC1.${'A'.repeat(26)}`, false],
  ['trailing LF', `svc1.${'A'.repeat(26)}\n`, false],
  ['leading space', ` svc1.${'A'.repeat(26)}`, false],
  ['empty', '', false],
];

for (const [name, token, wellFormed] of SVC1_SHAPES) {
  test(`isWellFormedSvc1: ${name} → ${wellFormed}`, () => {
    assert.equal(isWellFormedSvc1(token), wellFormed);
  });
}

const KINDS: [string, 'svc0' | 'svc1' | undefined][] = [
  ['svc0.e30.AQID', 'svc0'],
  ['svc0.', 'svc0'],
  ['svc1.x', 'svc1'],
  ['svc0', undefined],
  ['svc2.x', undefined],
  ['SVC0.e30.AQID', undefined],
  [' svc0.e30.AQID', undefined],
  ['', undefined],
];

for (const [token, kind] of KINDS) {
  test(`tokenKind(${JSON.stringify(token)}) is ${kind}`, () => {
    assert.equal(tokenKind(token), kind);
  });
}
