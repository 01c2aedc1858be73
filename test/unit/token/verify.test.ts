import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import fc from 'fast-check';
import { TokenError } from '../../../src/token/errors.js';
import { joinSvc0, splitSvc0 } from '../../../src/token/format.js';
import type { PublicKey } from '../../../src/token/keys.js';
import { mintSvc0 } from '../../../src/token/mint.js';
import { encodeSshSig, parseSshSig, signedData } from '../../../src/token/sshsig.js';
import { checkTimeWindow, verifySvc0, type VerifyOptions } from '../../../src/token/verify.js';
import { createMemorySigner, type MemorySigner } from '../../helpers/signers.js';

const NS = 'v0@localhost';
const NOW = 1_800_000_000;
const PAYLOAD = '{"exp":1900000000,"nbf":1700000000,"cmds":["whoami","ls"],"ctx":{"a":[1,2]}}';

/** Options trusting exactly `keys`, recording every fingerprint looked up. */
function trusting(keys: PublicKey[], overrides: Partial<VerifyOptions> = {}) {
  const lookups: string[] = [];
  const opts: VerifyOptions = {
    namespace: NS,
    nowSeconds: NOW,
    findKey: (fp) => {
      lookups.push(fp);
      return keys.find((k) => k.fingerprint === fp);
    },
    ...overrides,
  };
  return { opts, lookups };
}

function expectTokenError(fn: () => unknown, reason: string, message: string): TokenError {
  let caught: unknown;
  assert.throws(
    fn,
    (error) => {
      caught = error;
      return error instanceof TokenError && error.reason === reason && error.message === message;
    },
    `expected ${reason}: ${message}`,
  );
  return caught as TokenError;
}

describe('verifySvc0', () => {
  let ed: MemorySigner;
  let ec: MemorySigner;
  let rsa: MemorySigner;
  let token: string;

  before(async () => {
    ed = createMemorySigner('ed25519');
    ec = createMemorySigner('ecdsa-256');
    rsa = createMemorySigner('rsa-2048');
    token = await mintSvc0(PAYLOAD, ed, NS);
  });

  test('returns the verified permissions, payload, fingerprint, namespace and hash', () => {
    const { opts, lookups } = trusting([ec.publicKey, ed.publicKey]);
    assert.deepEqual(verifySvc0(token, opts), {
      permissions: {
        exp: 1900000000,
        nbf: 1700000000,
        cmds: ['whoami', 'ls'],
        ctxRaw: '{"a":[1,2]}',
      },
      payload: Buffer.from(PAYLOAD),
      fingerprint: ed.publicKey.fingerprint,
      namespace: NS,
      hashAlgorithm: 'sha512',
    });
    assert.deepEqual(lookups, [ed.publicKey.fingerprint]);
  });

  test('accepts ECDSA, RSA and sha256 signatures', async () => {
    for (const signer of [ec, rsa]) {
      const { opts } = trusting([signer.publicKey]);
      assert.equal(
        verifySvc0(await mintSvc0('{}', signer, NS), opts).fingerprint,
        signer.publicKey.fingerprint,
      );
    }
    const payload = Buffer.from('{"cmds":[]}');
    const sig = await ed.sign(signedData(NS, 'sha256', payload));
    const blob = encodeSshSig({
      publicKey: ed.publicKey.blob,
      namespace: NS,
      reserved: Buffer.alloc(0),
      hashAlgorithm: 'sha256',
      signature: sig,
    });
    const verified = verifySvc0(joinSvc0(payload, blob), trusting([ed.publicKey]).opts);
    assert.equal(verified.hashAlgorithm, 'sha256');
    assert.deepEqual(verified.permissions, { cmds: [] });
  });

  describe('step 3: structure, with the exact message', () => {
    const cases: [string, () => string, string, string][] = [
      [
        'too large',
        () => 'svc0.' + 'A'.repeat(8200),
        'too_large',
        'invalid token: exceeds 8192 bytes',
      ],
      ['no prefix', () => 'svc1.abc.def', 'malformed', 'invalid token: malformed'],
      ['no signature part', () => 'svc0.e30', 'malformed', 'invalid token: malformed'],
      [
        'padded payload',
        () => 'svc0.e30=.AAAA',
        'bad_base64url',
        'invalid token: payload is not valid base64url',
      ],
      [
        'bad signature base64url',
        () => 'svc0.e30.AA+A',
        'bad_base64url',
        'invalid token: signature is not valid base64url',
      ],
      [
        'permissions rule',
        () => 'svc0.' + Buffer.from('{"exp":1}').toString('base64url') + '.AAAA',
        'bad_permissions',
        'invalid token: exp out of range',
      ],
      [
        'SSHSIG layout',
        () => 'svc0.e30.AAAA',
        'bad_signature_blob',
        'invalid token: malformed signature',
      ],
    ];
    for (const [name, make, reason, message] of cases) {
      test(`${name} → ${message}`, () => {
        const { opts, lookups } = trusting([ed.publicKey]);
        const error = expectTokenError(() => verifySvc0(make(), opts), reason, message);
        assert.equal(error.structural, true);
        assert.equal(error.status, 401);
        assert.deepEqual(lookups, []);
      });
    }
  });

  describe('step 4: time window', () => {
    test('now > exp is expired; now === exp still passes', async () => {
      const { opts } = trusting([ed.publicKey]);
      expectTokenError(
        () => verifySvc0(token, { ...opts, nowSeconds: 1900000001 }),
        'expired',
        'invalid token: expired',
      );
      assert.equal(
        verifySvc0(token, { ...opts, nowSeconds: 1900000000 }).fingerprint,
        ed.publicKey.fingerprint,
      );
    });

    test('now < nbf is not yet valid; now === nbf passes', () => {
      const { opts } = trusting([ed.publicKey]);
      expectTokenError(
        () => verifySvc0(token, { ...opts, nowSeconds: 1699999999 }),
        'not_yet_valid',
        'invalid token: not yet valid',
      );
      assert.equal(verifySvc0(token, { ...opts, nowSeconds: 1700000000 }).namespace, NS);
    });

    test('comes after structure: an expired token with a broken blob is malformed', () => {
      const { payload } = splitSvc0(token);
      const broken = joinSvc0(payload, Buffer.from('SSHSIG'));
      const { opts } = trusting([ed.publicKey], { nowSeconds: 2000000000 });
      expectTokenError(
        () => verifySvc0(broken, opts),
        'bad_signature_blob',
        'invalid token: malformed signature',
      );
    });
  });

  describe('step 5: key, namespace, signature — all just "invalid token"', () => {
    const rejectedWith =
      (make: () => { token: string; opts: VerifyOptions }, logDetail: RegExp) => () => {
        const { token: t, opts } = make();
        const error = expectTokenError(() => verifySvc0(t, opts), 'rejected', 'invalid token');
        assert.equal(error.structural, false);
        assert.match(error.logDetail ?? '', logDetail);
      };

    test(
      'unknown key',
      rejectedWith(() => ({ token, opts: trusting([ec.publicKey]).opts }), /is not registered/),
    );

    test(
      'registered key under that fingerprint differs from the blob key',
      rejectedWith(
        () => ({ token, opts: { namespace: NS, nowSeconds: NOW, findKey: () => ec.publicKey } }),
        /differs from the signing key/,
      ),
    );

    test(
      'wrong namespace',
      rejectedWith(
        () => ({ token, opts: trusting([ed.publicKey], { namespace: 'v0@vm.localhost' }).opts }),
        /namespace "v0@localhost" is not v0@vm.localhost/,
      ),
    );

    test('bad signature: the blob of one payload spliced onto another', async () => {
      const other = await mintSvc0('{"cmds":["rm"]}', ed, NS);
      const spliced = joinSvc0(splitSvc0(other).payload, splitSvc0(token).sigblob);
      rejectedWith(
        () => ({ token: spliced, opts: trusting([ed.publicKey]).opts }),
        /bad "ssh-ed25519" signature/,
      )();
    });

    test('order: an expired token signed by an unknown key says expired', () => {
      const { opts, lookups } = trusting([], { nowSeconds: 1900000001 });
      expectTokenError(() => verifySvc0(token, opts), 'expired', 'invalid token: expired');
      assert.deepEqual(lookups, []);
    });

    test('order: a not-yet-valid token for another namespace says not yet valid', () => {
      const { opts } = trusting([ed.publicKey], { nowSeconds: 1600000000, namespace: 'v0@x' });
      expectTokenError(
        () => verifySvc0(token, opts),
        'not_yet_valid',
        'invalid token: not yet valid',
      );
    });
  });

  test('flipping any single byte of payload or sigblob throws TokenError (property)', async () => {
    for (const signer of [ed, ec, rsa]) {
      const valid = await mintSvc0(PAYLOAD, signer, NS);
      const { payload, sigblob } = splitSvc0(valid);
      const { opts } = trusting([signer.publicKey]);
      fc.assert(
        fc.property(
          fc.boolean(),
          fc.nat(),
          fc.integer({ min: 1, max: 255 }),
          (inPayload, index, xor) => {
            const part = Buffer.from(inPayload ? payload : sigblob);
            part[index % part.length]! ^= xor;
            const flipped = inPayload ? joinSvc0(part, sigblob) : joinSvc0(payload, part);
            assert.throws(() => verifySvc0(flipped, opts), TokenError);
          },
        ),
        { numRuns: signer === rsa ? 150 : 400 },
      );
    }
  });

  test('arbitrary token text throws only TokenError (property)', () => {
    const { opts } = trusting([ed.publicKey]);
    const text = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.tuple(fc.base64String(), fc.base64String()).map(([a, b]) => `svc0.${a}.${b}`),
      fc
        .nat(token.length - 1)
        .chain((i) =>
          fc
            .string({ minLength: 1, maxLength: 1 })
            .map((c) => token.slice(0, i) + c + token.slice(i + 1)),
        ),
    );
    fc.assert(
      fc.property(text, (t) => {
        try {
          verifySvc0(t, opts);
          assert.equal(t, token, 'only the untouched token verifies');
        } catch (error) {
          assert.ok(error instanceof TokenError, String(error));
        }
      }),
      { numRuns: 1000 },
    );
  });

  test('a signature for one namespace never verifies under another (property)', async () => {
    const namespace = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 });
    await fc.assert(
      fc.asyncProperty(namespace, namespace, async (a, b) => {
        fc.pre(a !== b);
        const t = await mintSvc0('{}', ed, a);
        assert.equal(verifySvc0(t, trusting([ed.publicKey], { namespace: a }).opts).namespace, a);
        expectTokenError(
          () => verifySvc0(t, trusting([ed.publicKey], { namespace: b }).opts),
          'rejected',
          'invalid token',
        );
        // Even a blob relabelled with the other namespace fails: the signature covers it.
        const sig = parseSshSig(splitSvc0(t).sigblob);
        const relabelled = joinSvc0(splitSvc0(t).payload, encodeSshSig({ ...sig, namespace: b }));
        expectTokenError(
          () => verifySvc0(relabelled, trusting([ed.publicKey], { namespace: b }).opts),
          'rejected',
          'invalid token',
        );
      }),
      { numRuns: 200 },
    );
  });
});

describe('checkTimeWindow', () => {
  const cases: [string, { exp?: number; nbf?: number }, number, string | undefined][] = [
    ['no window', {}, NOW, undefined],
    ['before exp', { exp: NOW + 1 }, NOW, undefined],
    ['at exp', { exp: NOW }, NOW, undefined],
    ['after exp', { exp: NOW - 1 }, NOW, 'invalid token: expired'],
    ['at nbf', { nbf: NOW }, NOW, undefined],
    ['before nbf', { nbf: NOW + 1 }, NOW, 'invalid token: not yet valid'],
    [
      'expired and not yet valid: expired wins',
      { exp: NOW - 1, nbf: NOW + 1 },
      NOW,
      'invalid token: expired',
    ],
  ];
  for (const [name, p, now, message] of cases) {
    test(`${name} → ${message ?? 'ok'}`, () => {
      if (message === undefined) checkTimeWindow(p, now);
      else assert.throws(() => checkTimeWindow(p, now), { name: 'TokenError', message });
    });
  }
});
