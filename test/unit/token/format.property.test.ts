// Property tests for the token wire format: untrusted strings only ever yield a TokenError, and
// encoding/decoding is an exact, canonical round trip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TokenError } from '../../../src/token/errors.js';
import {
  MAX_TOKEN_BYTES,
  decodeBase64UrlStrict,
  encodeBase64Url,
  isWellFormedSvc1,
  joinSvc0,
  splitSvc0,
  tokenKind,
} from '../../../src/token/format.js';
import { BranchShare } from '../../helpers/branch-share.js';

const RUNS = { numRuns: 2000 };

/** Calls `fn`; any exception other than a TokenError fails the property. */
function onlyTokenErrors<T>(fn: () => T): T | TokenError {
  try {
    return fn();
  } catch (error) {
    if (error instanceof TokenError) return error;
    throw error;
  }
}

/** Strings biased towards what a token is made of, so the checks past the prefix are reached. */
const tokenish = fc
  .array(
    fc.oneof(
      fc.constantFrom('svc0.', 'svc1.', '.', '=', '+', '/', '-', '_', ' ', '\n', 'é', '\0'),
      fc.string({
        unit: fc.constantFrom(
          ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
        ),
      }),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

/** Well-formed tokens, some with one character replaced, inserted or removed. */
const nearlyValid = fc
  .tuple(
    fc.uint8Array({ maxLength: 60 }),
    fc.uint8Array({ maxLength: 60 }),
    fc.nat(),
    fc.constantFrom('', '.', '=', 'A', '-', '+', 'é'),
    fc.constantFrom(0, 1),
  )
  .map(([payload, sigblob, at, inserted, removed]) => {
    const token = `svc0.${encodeBase64Url(payload)}.${encodeBase64Url(sigblob)}`;
    const i = at % (token.length + 1);
    return token.slice(0, i) + inserted + token.slice(i + removed);
  });

const anyText = fc.oneof(
  nearlyValid,
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'binary', minLength: 8180, maxLength: 8200 }),
  tokenish,
  tokenish.map((t) => `svc0.${t}`),
);

test('splitSvc0 returns or throws a TokenError for any string', () => {
  fc.assert(
    fc.property(anyText, (token) => {
      const result = onlyTokenErrors(() => splitSvc0(token));
      if (result instanceof TokenError) {
        assert.ok(['too_large', 'malformed', 'bad_base64url'].includes(result.reason));
      } else {
        // Whatever is accepted is exactly what joinSvc0 would write.
        assert.equal(joinSvc0(result.payload, result.sigblob), token);
      }
    }),
    RUNS,
  );
});

test('decodeBase64UrlStrict accepts only canonical text', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ unit: 'binary' }), tokenish), (text) => {
      const result = onlyTokenErrors(() => decodeBase64UrlStrict(text, 'payload'));
      if (result instanceof TokenError) {
        assert.equal(result.message, 'invalid token: payload is not valid base64url');
      } else {
        assert.equal(encodeBase64Url(result), text);
      }
    }),
    RUNS,
  );
});

test('decodeBase64UrlStrict(encodeBase64Url(b)) gives b back', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
      const text = encodeBase64Url(bytes);
      assert.match(text, /^[A-Za-z0-9_-]*$/);
      assert.equal(text.length, Math.ceil((bytes.length * 4) / 3));
      assert.deepEqual(new Uint8Array(decodeBase64UrlStrict(text, 'payload')), bytes);
    }),
    RUNS,
  );
});

test('joinSvc0 and splitSvc0 round-trip, and the cap holds', (t) => {
  const share = new BranchShare();
  const part = fc.uint8Array({ maxLength: 6200, size: 'max' });
  fc.assert(
    fc.property(part, part, (payload, sigblob) => {
      const size = 6 + encodeBase64Url(payload).length + encodeBase64Url(sigblob).length;
      const token = onlyTokenErrors(() => joinSvc0(payload, sigblob));
      if (size > MAX_TOKEN_BYTES) {
        assert.equal(token instanceof TokenError && token.reason, 'too_large');
        return share.refused();
      }
      share.accepted();
      assert.equal(typeof token, 'string');
      const parts = onlyTokenErrors(() => splitSvc0(token as string));
      if (payload.length === 0 || sigblob.length === 0) {
        assert.equal(parts instanceof TokenError && parts.reason, 'malformed');
      } else {
        assert.deepEqual(parts, { payload: Buffer.from(payload), sigblob: Buffer.from(sigblob) });
      }
    }),
    { numRuns: 500 },
  );
  share.assertFloor((message) => t.diagnostic(message));
});

test('tokenKind and isWellFormedSvc1 agree and never throw', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        anyText,
        fc.string({ unit: fc.constantFrom(...'AEIQZ27=') }).map((s) => `svc1.${s}`),
      ),
      (token) => {
        const kind = tokenKind(token);
        if (isWellFormedSvc1(token)) assert.equal(kind, 'svc1');
        assert.equal(kind === undefined, !/^svc[01]\./.test(token));
      },
    ),
    RUNS,
  );
});

/** The definition the decoder must match: Node's decoder, kept strict by re-encoding. */
function referenceDecode(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

test('decodeBase64UrlStrict accepts exactly the canonical spellings, with the same bytes', () => {
  const base64ish = fc.string({
    unit: fc.constantFrom(
      ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ é',
    ),
    maxLength: 40,
  });
  fc.assert(
    fc.property(fc.oneof(base64ish, anyText), (text) => {
      const expected = referenceDecode(text);
      const got = onlyTokenErrors(() => decodeBase64UrlStrict(text, 'payload'));
      if (expected === undefined) {
        assert.ok(got instanceof TokenError, `accepted ${JSON.stringify(text)}`);
        assert.equal(got.message, 'invalid token: payload is not valid base64url');
      } else {
        assert.deepEqual(got, expected, JSON.stringify(text));
      }
    }),
    { numRuns: 5000 },
  );
});
