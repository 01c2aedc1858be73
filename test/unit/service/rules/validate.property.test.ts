// Properties of the parsers that read untrusted command arguments: they answer exactly as
// their rule says, and for ANY input they either return or throw a 422 — nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ExectlError } from '../../../../src/errors.js';
import { parseExpiry } from '../../../../src/service/commands/shared/token-options.js';
import {
  checkKeyName,
  checkTag,
  checkVmName,
  parseEnv,
  parsePort,
  quote,
} from '../../../../src/service/rules/validate.js';

/** Runs `fn`; a thrown value must be a 422 ExectlError. Returns what it returned, if it did. */
function attempt<T>(fn: () => T): { ok: true; value: T } | { ok: false } {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    assert.ok(error instanceof ExectlError && error.status === 422, String(error));
    return { ok: false };
  }
}

const accepts = (fn: () => unknown): boolean => attempt(fn).ok;

const anyText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
);
const labelChars = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_A.'.split(''));
const labelish = fc.string({ unit: labelChars, maxLength: 70 });

test('checkVmName accepts exactly the DNS labels of SPEC §3', () => {
  const isLabel = (s: string) =>
    s.length >= 2 &&
    s.length <= 63 &&
    [...s].every((c) => (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c === '-') &&
    s[0]! >= 'a' &&
    s[0]! <= 'z' &&
    s.at(-1) !== '-';
  fc.assert(
    fc.property(fc.oneof(labelish, anyText), (s) => {
      assert.equal(
        accepts(() => checkVmName(s)),
        isLabel(s),
      );
    }),
    { numRuns: 2000 },
  );
});

test('checkTag accepts exactly the tags of SPEC §3', () => {
  const isTag = (s: string) =>
    s.length >= 1 &&
    s.length <= 63 &&
    /^[a-z]/.test(s) &&
    [...s].every((c) => /^[a-z0-9_-]$/.test(c));
  fc.assert(
    fc.property(fc.oneof(labelish, anyText), (s) => {
      assert.equal(
        accepts(() => checkTag(s)),
        isTag(s),
      );
    }),
    { numRuns: 2000 },
  );
});

test('parsePort returns the number written, in range, or refuses', () => {
  fc.assert(
    fc.property(fc.oneof(fc.integer({ min: -10, max: 70000 }).map(String), anyText), (s) => {
      const result = attempt(() => parsePort(s));
      if (result.ok) {
        assert.ok(result.value >= 1024 && result.value <= 65535);
        assert.equal(String(result.value), s);
      } else {
        assert.ok(!(String(Number(s)) === s && Number(s) >= 1024 && Number(s) <= 65535));
      }
    }),
  );
});

test('parseEnv keeps every KEY=VALUE verbatim, and refuses anything else with a 422', () => {
  const key = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/);
  fc.assert(
    fc.property(fc.uniqueArray(fc.tuple(key, anyText), { selector: ([k]) => k }), (pairs) => {
      const env = parseEnv(pairs.map(([k, v]) => `${k}=${v}`));
      assert.deepEqual(Object.entries(env), pairs);
    }),
  );
  fc.assert(
    fc.property(
      fc.array(anyText, { maxLength: 4 }),
      (entries) => void accepts(() => parseEnv(entries)),
    ),
  );
});

test('parseExpiry: N units from now, never, or a 422; never past 2100-01-01', () => {
  const now = 1_740_830_400;
  const unit = { h: 3600, d: 86_400, w: 604_800, y: 31_536_000 };
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 100_000 }),
      fc.constantFrom('h', 'd', 'w', 'y'),
      (n, u) => {
        const expected = now + n * unit[u as keyof typeof unit];
        const result = attempt(() => parseExpiry(`${n}${u}`, now));
        if (result.ok) assert.equal(result.value, expected);
        else assert.ok(expected > 4_102_444_800);
      },
    ),
  );
  fc.assert(
    fc.property(anyText, (s) => {
      const result = attempt(() => parseExpiry(s, now));
      if (result.ok) {
        const exp = result.value;
        assert.ok(exp === null ? s === 'never' : exp > now && exp <= 4_102_444_800);
      }
    }),
  );
});

test('checkKeyName never accepts controls, edge spaces or fingerprints; quote is one JSON line', () => {
  fc.assert(
    fc.property(anyText, (s) => {
      if (accepts(() => checkKeyName(s))) {
        assert.ok(s.length >= 1 && s.length <= 64 && s.trim() === s && !s.startsWith('SHA256:'));
        assert.doesNotMatch(s, /[\u0000-\u001f\u007f]/);
      }
      const quoted = quote(s);
      assert.doesNotMatch(quoted, /[\u0000-\u001f]/);
      const inner = JSON.parse(quoted) as string;
      assert.equal(inner, s.length > 64 ? `${s.slice(0, 64)}...` : s);
    }),
    { numRuns: 2000 },
  );
});
