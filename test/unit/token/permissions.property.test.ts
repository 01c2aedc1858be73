// Property tests for the permissions parser, which reads untrusted bytes: it only ever returns
// or throws a TokenError, agrees with JSON.parse wherever JSON.parse can judge, keeps `ctx`
// byte-exact at any depth, and serializePermissions always writes what it parses back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TokenError } from '../../../src/token/errors.js';
import {
  parsePermissions,
  serializePermissions,
  type Permissions,
} from '../../../src/token/permissions.js';
import { scanStrictJson } from '../../../src/token/strict-json.js';
import { BranchShare } from '../../helpers/branch-share.js';

const RUNS = { numRuns: 2000 };

/** Parses `payload`; any exception other than a bad_permissions TokenError fails the property. */
function parseOrReason(payload: string | Uint8Array): Permissions | TokenError {
  try {
    return parsePermissions(typeof payload === 'string' ? Buffer.from(payload) : payload);
  } catch (error) {
    if (error instanceof TokenError && error.reason === 'bad_permissions') return error;
    throw error;
  }
}

function jsonParses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Text made of JSON fragments, so that most inputs get deep into the scanner. */
const jsonish = fc
  .array(
    fc.constantFrom(
      ...['{', '}', '[', ']', ',', ':', '"', '\\', ' ', '\t', '\n', '\0', 'é', '\u001f'],
      ...['"exp"', '"nbf"', '"cmds"', '"ctx"', '"a"', String.raw`"\u0061"`, '"ls"', '""'],
      ...['0', '1', '-', '.', 'e', '+', '1.0', '1e3', '-1', '0123', '1900000000', '4102444801'],
      ...['true', 'null', 'fals', String.raw`"\n"`, String.raw`"\x"`, String.raw`"\ud800"`],
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

const objectFree = jsonish.map((text) => text.replace(/[{}]/g, '['));

/** A JSON string literal with its value; each character is written raw or escaped at random. */
const stringLiteral = fc
  .array(fc.tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.nat(2)), {
    maxLength: 6,
  })
  .map((chars) => ({
    value: chars.map(([c]) => c).join(''),
    literal: `"${chars.map(([c, how]) => writeChar(c, how)).join('')}"`,
  }));

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '/': '\\/', '\b': '\\b' };

function writeChar(c: string, how: number): string {
  const mustEscape = c === '"' || c === '\\' || c < ' ' || /\p{Surrogate}/u.test(c);
  if (how === 2 && SHORT_ESCAPES[c] !== undefined) return SHORT_ESCAPES[c];
  if (how === 0 && !mustEscape) return c;
  return [...Array(c.length).keys()]
    .map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`)
    .join('');
}

const ws = fc.constantFrom('', '', ' ', '\t', ' \t ');
const numberLiteral = fc.stringMatching(
  /^-?(?:0|[1-9][0-9]{0,5})(?:\.[0-9]{1,3})?(?:[eE][+-]?[0-9]{1,3})?$/,
);

/** Any JSON value as text, with odd-but-valid spelling: escapes, spaces, number forms. */
const { value: jsonText } = fc.letrec<{
  value: string;
  scalar: string;
  array: string;
  object: string;
}>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, tie('scalar'), tie('array'), tie('object')),
  scalar: fc.oneof(
    fc.constantFrom('null', 'true', 'false'),
    numberLiteral,
    stringLiteral.map((s) => s.literal),
  ),
  array: fc
    .array(fc.tuple(ws, tie('value'), ws), { maxLength: 4 })
    .map((items) => `[${items.map((parts) => parts.join('')).join(',')}]`),
  object: fc
    .uniqueArray(fc.tuple(stringLiteral, ws, tie('value')), {
      selector: ([key]) => key.value,
      maxLength: 4,
    })
    .map((members) => `{${members.map(([k, s, v]) => `${k.literal}${s}:${s}${v}`).join(',')}}`),
}));

/** Permissions-shaped objects: right and wrong fields, values and spellings, in any order. */
const permissionsText = fc
  .array(
    fc.tuple(
      fc.constantFrom('"exp"', '"nbf"', '"cmds"', '"ctx"', String.raw`"\u0063tx"`, '"x"'),
      ws,
      fc.oneof(
        fc.integer({ min: 946684790, max: 4102444810 }).map(String),
        numberLiteral,
        stringLiteral.map((s) => `[${s.literal}]`),
        jsonText,
      ),
    ),
    { maxLength: 5 },
  )
  .map((members) => `{${members.map(([k, s, v]) => `${k}${s}:${s}${v}`).join(',')}}`);

/** Valid permissions as a caller would build them. */
const permissions: fc.Arbitrary<Permissions> = fc
  .record(
    {
      exp: fc.integer({ min: 946684800, max: 4102444800 }),
      nbf: fc.integer({ min: 946684800, max: 4102444800 }),
      cmds: fc.array(fc.string({ unit: 'binary', minLength: 1 }), { maxLength: 5 }),
      ctxRaw: fc.oneof(fc.json(), jsonText),
    },
    { requiredKeys: [] },
    // fc.record makes null-prototype objects; the parser returns plain ones.
  )
  .map((p) => ({ ...p }));

test('arbitrary bytes and strings only ever give permissions or a TokenError', () => {
  const input = fc.oneof(fc.uint8Array(), fc.string({ unit: 'binary' }), jsonish, permissionsText);
  fc.assert(
    fc.property(input, (payload) => {
      parseOrReason(payload);
    }),
    RUNS,
  );
});

test('without objects (so without duplicate keys) the scanner agrees with JSON.parse', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        objectFree,
        jsonText.filter((t) => !t.includes('{')),
      ),
      (text) => {
        assert.equal(scanStrictJson(text).ok, jsonParses(text));
      },
    ),
    RUNS,
  );
});

test('what the scanner accepts JSON.parse accepts, with the same members', (t) => {
  const share = new BranchShare();
  fc.assert(
    fc.property(fc.oneof(jsonish, jsonText), (text) => {
      const scan = scanStrictJson(text);
      if (!scan.ok) return share.refused();
      share.accepted();
      const value: unknown = JSON.parse(text);
      assert.deepEqual(JSON.parse(text.slice(scan.start, scan.end)), value);
      if (scan.members === undefined) return;
      const object = value as Record<string, unknown>;
      assert.deepEqual(scan.members.map((m) => m.key).sort(), Object.keys(object).sort());
      for (const m of scan.members) {
        assert.deepEqual(JSON.parse(text.slice(m.start, m.end)), object[m.key]);
      }
    }),
    RUNS,
  );
  share.assertFloor((message) => t.diagnostic(message));
});

test('an accepted payload means what JSON.parse says it means', (t) => {
  const share = new BranchShare();
  fc.assert(
    // jsonish and permissionsText are mostly refused, on purpose; payloads serialised from valid
    // permissions are there so that the accepted branch is reached often enough to mean much.
    fc.property(
      fc.oneof(jsonish, permissionsText, permissions.map(serializePermissions)),
      (text) => {
        const parsed = parseOrReason(text);
        if (parsed instanceof TokenError) return share.refused();
        share.accepted();
        const object = JSON.parse(text) as Record<string, unknown>;
        assert.deepEqual(
          { exp: object.exp, nbf: object.nbf, cmds: object.cmds },
          { exp: parsed.exp, nbf: parsed.nbf, cmds: parsed.cmds },
        );
        assert.equal(parsed.ctxRaw === undefined, !('ctx' in object));
      },
    ),
    RUNS,
  );
  share.assertFloor((message) => t.diagnostic(message));
});

test('any JSON value is accepted as ctx, and ctxRaw is its exact slice', () => {
  const anyValue = fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    jsonText,
  );
  fc.assert(
    fc.property(anyValue, ws, ws, (ctx, before, after) => {
      const head = `{"cmds":["ls"],"ctx":${before}`;
      const payload = Buffer.from(`${head}${ctx}${after}}`);
      const parsed = parsePermissions(payload);
      assert.equal(parsed.ctxRaw, ctx);
      const start = Buffer.byteLength(head);
      assert.deepEqual(Buffer.from(ctx), payload.subarray(start, start + Buffer.byteLength(ctx)));
    }),
    RUNS,
  );
});

test('ctx nested up to 5000 deep in arrays and objects is accepted exactly', () => {
  const level = fc.constantFrom(['[', ']'], ['{"a":', '}'], ['[1, ', ']'], ['{"":0,"b":', '}']);
  const nesting = fc.array(level, { minLength: 1, maxLength: 5000, size: 'max' });
  fc.assert(
    fc.property(nesting, (levels) => {
      const closing = levels.map(([, close]) => close).reverse();
      const ctx = `${levels.map(([open]) => open).join('')}0${closing.join('')}`;
      assert.equal(parsePermissions(Buffer.from(`{"ctx":${ctx}}`)).ctxRaw, ctx);
    }),
    { numRuns: 200 },
  );
  const arrays = '['.repeat(5000) + ']'.repeat(5000);
  assert.equal(parsePermissions(Buffer.from(`{"ctx":${arrays}}`)).ctxRaw, arrays);
});

test('serializePermissions output always parses back to the same permissions', () => {
  fc.assert(
    fc.property(permissions, (p) => {
      assert.deepEqual(parsePermissions(Buffer.from(serializePermissions(p))), p);
    }),
    RUNS,
  );
});

test('random mutations of a valid payload never crash, and what survives re-serialises', (t) => {
  const share = new BranchShare();
  const mutation = fc.tuple(
    fc.nat(),
    fc.nat(2),
    fc.constantFrom(0x00, 0x0a, 0x20, 0x22, 0x2c, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x31, 0xc3, 0xff),
  );
  // Nearly every mutation breaks the payload: one case in four has none, so that what survives
  // (and must re-serialise) is checked often, not a few times in 2000.
  const mutationLists = fc.oneof(
    { arbitrary: fc.constant([]), weight: 1 },
    { arbitrary: fc.array(mutation, { minLength: 1, maxLength: 4 }), weight: 3 },
  );
  fc.assert(
    fc.property(permissions, mutationLists, (p, mutations) => {
      const bytes = [...Buffer.from(serializePermissions(p))];
      for (const [at, kind, byte] of mutations) {
        const i = at % (bytes.length + 1);
        if (kind === 0) bytes.splice(i, 0, byte);
        else if (kind === 1) bytes.splice(i, 1);
        else bytes.splice(i, 1, byte);
      }
      const parsed = parseOrReason(Buffer.from(bytes));
      if (parsed instanceof TokenError) return share.refused();
      share.accepted();
      assert.deepEqual(parsePermissions(Buffer.from(serializePermissions(parsed))), parsed);
    }),
    RUNS,
  );
  share.assertFloor((message) => t.diagnostic(message));
});
