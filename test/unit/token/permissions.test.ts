// The permissions-JSON rules of SPEC §1.3, one table row per case, with exact messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenError } from '../../../src/token/errors.js';
import {
  DEFAULT_CMDS,
  effectiveCmds,
  parsePermissions,
  serializePermissions,
  type Permissions,
} from '../../../src/token/permissions.js';

const deep = (depth: number, inner: string): string =>
  '['.repeat(depth) + inner + ']'.repeat(depth);
const bytes = (...parts: (string | number[])[]): Buffer =>
  Buffer.concat(parts.map((p) => Buffer.from(p)));

/** [case, payload, the permissions it parses to]. */
const ACCEPTED: [string, string, Permissions][] = [
  ['empty object', '{}', {}],
  [
    'the SPEC recipe payload',
    '{"exp":1900000000,"cmds":["whoami"]}',
    { exp: 1900000000, cmds: ['whoami'] },
  ],
  [
    'every field, any key order',
    '{"ctx":{"a":1},"cmds":["ssh-key list","ls"],"nbf":1000000000,"exp":2000000000}',
    { exp: 2000000000, nbf: 1000000000, cmds: ['ssh-key list', 'ls'], ctxRaw: '{"a":1}' },
  ],
  ['exp at the lower bound', '{"exp":946684800}', { exp: 946684800 }],
  ['exp at the upper bound', '{"exp":4102444800}', { exp: 4102444800 }],
  ['nbf at the lower bound', '{"nbf":946684800}', { nbf: 946684800 }],
  ['nbf at the upper bound', '{"nbf":4102444800}', { nbf: 4102444800 }],
  ['cmds empty allows nothing', '{"cmds":[]}', { cmds: [] }],
  ['ctx null', '{"ctx":null}', { ctxRaw: 'null' }],
  ['ctx true', '{"ctx":true}', { ctxRaw: 'true' }],
  ['ctx false', '{"ctx":false}', { ctxRaw: 'false' }],
  ['ctx zero', '{"ctx":0}', { ctxRaw: '0' }],
  ['ctx odd number forms', '{"ctx":[-0,1.5e-3,1E+2,-0.0]}', { ctxRaw: '[-0,1.5e-3,1E+2,-0.0]' }],
  ['ctx string', '{"ctx":"s"}', { ctxRaw: '"s"' }],
  ['ctx empty array', '{"ctx":[]}', { ctxRaw: '[]' }],
  ['ctx empty object', '{"ctx":{}}', { ctxRaw: '{}' }],
  [
    'ctx keeps its inner spaces and tabs verbatim',
    '{"ctx": [ 1 ,\t{ "a" : 2 } ] ,"cmds":["x"]}',
    { cmds: ['x'], ctxRaw: '[ 1 ,\t{ "a" : 2 } ]' },
  ],
  [
    'escaped \\n inside a string is no raw LF',
    String.raw`{"ctx":"line1\nline2\r"}`,
    { ctxRaw: String.raw`"line1\nline2\r"` },
  ],
  [
    'every escape, a surrogate pair and a lone surrogate',
    String.raw`{"ctx":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00\ud800"}`,
    { ctxRaw: String.raw`"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00\ud800"` },
  ],
  [
    'raw unicode in cmds and ctx',
    '{"cmds":["héllo ☃"],"ctx":"😀\u2028"}',
    { cmds: ['héllo ☃'], ctxRaw: '"😀\u2028"' },
  ],
  [
    'escaped cmds are decoded',
    String.raw`{"cmds":["ssh-key\u0020list"]}`,
    { cmds: ['ssh-key list'] },
  ],
  [
    'the same key in sibling objects is no duplicate',
    '{"ctx":[{"a":1},{"a":2},{"exp":"x","ctx":{"ctx":1}}]}',
    { ctxRaw: '[{"a":1},{"a":2},{"exp":"x","ctx":{"ctx":1}}]' },
  ],
  ['ctx 4000 arrays deep', `{"ctx":${deep(4000, '')}}`, { ctxRaw: deep(4000, '') }],
];

const UTF8 = 'permissions JSON is not valid UTF-8';
const EDGE = 'permissions JSON has leading or trailing whitespace';
const CRLF = 'permissions JSON contains CR or LF';
const NUL = 'permissions JSON contains a NUL byte';
const JSON_ = 'invalid permissions JSON';
const CMDS = 'cmds must be an array of non-empty strings';
const dup = (key: string): string => `duplicate key "${key}" in permissions JSON`;
const unknown = (key: string): string => `unknown field "${key}" in permissions`;

/** [case, payload, the exact short reason it is rejected with], grouped by SPEC §1.3 rule. */
const REJECTED: [string, string | Buffer, string][] = [
  // UTF-8 comes before every other rule.
  ['invalid byte 0xFF', bytes('{"ctx":"', [0xff], '"}'), UTF8],
  ['overlong encoding', bytes('{"ctx":"', [0xc0, 0xaf], '"}'), UTF8],
  ['encoded surrogate', bytes('{"ctx":"', [0xed, 0xa0, 0x80], '"}'), UTF8],
  ['truncated sequence at the end', bytes('{}', [0xe2, 0x82]), UTF8],
  ['UTF-8 is checked before whitespace', bytes(' {', [0xff], '}'), UTF8],
  // Rule 1: whitespace at either end.
  ['leading space', ' {}', EDGE],
  ['trailing space', '{} ', EDGE],
  ['leading tab', '\t{}', EDGE],
  ['trailing tab', '{}\t', EDGE],
  ['leading LF is whitespace first', '\n{}', EDGE],
  ['trailing CRLF', '{}\r\n', EDGE],
  ['leading no-break space', '\u00a0{}', EDGE],
  ['leading byte order mark', '\ufeff{}', EDGE],
  // Rule 2: CR or LF anywhere.
  ['LF between tokens', '{"ctx":\n1}', CRLF],
  ['raw CR inside a string', '{"ctx":"a\rb"}', CRLF],
  ['CR or LF is checked before NUL', '{"ctx":"\0\n"}', CRLF],
  // Rule 3: NUL.
  ['raw NUL inside a string', '{"ctx":"\0"}', NUL],
  ['leading NUL', '\0{}', NUL],
  // Rule 4: one valid JSON object.
  ['empty payload', '', JSON_],
  ['unclosed object', '{"ctx":1', JSON_],
  ['top-level array', '[]', JSON_],
  ['top-level array of an object', '[{}]', JSON_],
  ['top-level string', '"{}"', JSON_],
  ['top-level number', '1', JSON_],
  ['top-level null', 'null', JSON_],
  ['trailing garbage', '{}x', JSON_],
  ['two objects', '{} {}', JSON_],
  ['trailing comma in object', '{"ctx":1,}', JSON_],
  ['trailing comma in array', '{"ctx":[1,]}', JSON_],
  ['missing comma', '{"ctx":[1 2]}', JSON_],
  ['missing colon', '{"ctx" 1}', JSON_],
  ['missing value', '{"ctx":}', JSON_],
  ['mismatched brackets', '{"ctx":[1}', JSON_],
  ['single quotes', "{'ctx':1}", JSON_],
  ['bare key', '{ctx:1}', JSON_],
  ['number key', '{"ctx":{1:2}}', JSON_],
  ['comment', '{/**/}', JSON_],
  ['leading zero', '{"ctx":01}', JSON_],
  ['dot without digits', '{"ctx":1.}', JSON_],
  ['fraction without integer', '{"ctx":.5}', JSON_],
  ['exponent without digits', '{"ctx":1e}', JSON_],
  ['lone minus', '{"ctx":-}', JSON_],
  ['NaN', '{"ctx":NaN}', JSON_],
  ['capitalised literal', '{"ctx":True}', JSON_],
  ['truncated literal', '{"ctx":nul}', JSON_],
  ['unknown escape', String.raw`{"ctx":"\x41"}`, JSON_],
  ['short \\u escape', String.raw`{"ctx":"\u123"}`, JSON_],
  ['non-hex \\u escape', String.raw`{"ctx":"\u12G4"}`, JSON_],
  ['raw tab inside a string', '{"ctx":"a\tb"}', JSON_],
  ['raw 0x1F inside a string', '{"ctx":"\u001f"}', JSON_],
  ['unterminated string', '{"ctx":"abc}', JSON_],
  ['backslash at the very end', '{"ctx":"\\', JSON_],
  ['ctx 4000 deep, one bracket short', `{"ctx":${deep(4000, '').slice(1)}}`, JSON_],
  // Rule 4: duplicate keys, compared after unescaping, at every depth.
  ['duplicate top-level key', '{"exp":1000000000,"exp":1000000000}', dup('exp')],
  [
    'duplicate via \\u at top level',
    String.raw`{"\u0065xp":1000000000,"exp":1000000000}`,
    dup('exp'),
  ],
  ['duplicate deep in ctx', '{"ctx":{"a":{"b":[{"c":1,"d":2,"c":3}]}}}', dup('c')],
  ['duplicate via \\u escape in ctx', String.raw`{"ctx":{"a":1,"\u0061":2}}`, dup('a')],
  ['duplicate empty key', '{"ctx":{"":1,"":2}}', dup('')],
  ['duplicate 4000 deep', `{"ctx":${deep(4000, '{"a":1,"a":2}')}}`, dup('a')],
  ['duplicate before unknown field (rule 4 before 5)', '{"x":1,"x":2}', dup('x')],
  [
    'duplicate key shown escaped',
    String.raw`{"ctx":{"\u001b[2J":1,"\u001b[2J":2}}`,
    dup('\\u001b[2J'),
  ],
  ['non-ASCII duplicate shown escaped', String.raw`{"ctx":{"é":1,"\u00e9":2}}`, dup('\\u00e9')],
  [
    'long duplicate key cut at 64',
    `{"ctx":{"${'k'.repeat(65)}":1,"${'k'.repeat(65)}":2}}`,
    dup(`${'k'.repeat(64)}...`),
  ],
  [
    '64-character duplicate key shown whole',
    `{"ctx":{"${'k'.repeat(64)}":1,"${'k'.repeat(64)}":2}}`,
    dup('k'.repeat(64)),
  ],
  // Rule 5: top-level keys.
  ['unknown field', '{"x":1}', unknown('x')],
  ['field names are case-sensitive', '{"EXP":1000000000}', unknown('EXP')],
  ['unknown field among known ones', '{"exp":1000000000,"ctx":1,"cmd":["x"]}', unknown('cmd')],
  ['unknown field before a bad exp (rule 5 before 6)', '{"exp":1.0,"foo":1}', unknown('foo')],
  ['unknown field with a quote in its name', String.raw`{"a\"b":1}`, unknown('a\\"b')],
  // Rule 6: exp/nbf literal form.
  ['exp 1.0', '{"exp":1.0}', 'exp must be an integer'],
  ['exp with a zero fraction in range', '{"exp":1900000000.0}', 'exp must be an integer'],
  ['exp 1e9', '{"exp":1e9}', 'exp must be an integer'],
  ['exp 1E9', '{"exp":1E9}', 'exp must be an integer'],
  ['exp -1', '{"exp":-1}', 'exp must be an integer'],
  ['exp -0', '{"exp":-0}', 'exp must be an integer'],
  ['exp +1 is not JSON at all (rule 4)', '{"exp":+1}', JSON_],
  ['exp 0123 is not JSON at all (rule 4)', '{"exp":0123}', JSON_],
  ['exp as a string', '{"exp":"1900000000"}', 'exp must be an integer'],
  ['exp null', '{"exp":null}', 'exp must be an integer'],
  ['exp true', '{"exp":true}', 'exp must be an integer'],
  ['exp array', '{"exp":[1900000000]}', 'exp must be an integer'],
  ['nbf 1.0', '{"nbf":1.0}', 'nbf must be an integer'],
  ['nbf -1', '{"nbf":-1}', 'nbf must be an integer'],
  ['nbf as a string', '{"nbf":"1"}', 'nbf must be an integer'],
  [
    'bad nbf form before exp range (rule 6 before 7)',
    '{"exp":1,"nbf":1.5}',
    'nbf must be an integer',
  ],
  // Rule 7: range.
  ['exp one below the range', '{"exp":946684799}', 'exp out of range'],
  ['exp one above the range', '{"exp":4102444801}', 'exp out of range'],
  ['exp 0', '{"exp":0}', 'exp out of range'],
  ['exp with 30 digits', `{"exp":${'9'.repeat(30)}}`, 'exp out of range'],
  ['nbf one below the range', '{"nbf":946684799}', 'nbf out of range'],
  ['nbf one above the range', '{"nbf":4102444801}', 'nbf out of range'],
  ['exp is checked before nbf', '{"nbf":1,"exp":2}', 'exp out of range'],
  ['range before cmds', '{"cmds":1,"exp":0}', 'exp out of range'],
  // cmds: an array of non-empty strings.
  ['cmds with an empty string', '{"cmds":[""]}', CMDS],
  ['cmds with an empty string after a good one', '{"cmds":["ls",""]}', CMDS],
  ['cmds with a number', '{"cmds":[1]}', CMDS],
  ['cmds with null', '{"cmds":["ls",null]}', CMDS],
  ['cmds as a string', '{"cmds":"ls"}', CMDS],
  ['cmds nested', '{"cmds":[["ls"]]}', CMDS],
  ['cmds as an object', '{"cmds":{"0":"ls"}}', CMDS],
  ['cmds null', '{"cmds":null}', CMDS],
  ['cmds 4000 deep', `{"cmds":${deep(4000, '"ls"')}}`, CMDS],
];

/** What parsePermissions makes of a payload: the permissions, or the TokenError's message. */
function outcome(payload: string | Uint8Array): Permissions | string {
  try {
    return parsePermissions(typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload);
  } catch (error) {
    assert.ok(error instanceof TokenError, `not a TokenError: ${String(error)}`);
    assert.equal(error.reason, 'bad_permissions');
    return error.message;
  }
}

test('the table covers at least 40 payloads', () => {
  assert.ok(ACCEPTED.length + REJECTED.length >= 40);
});

for (const [name, payload, permissions] of ACCEPTED) {
  test(`parsePermissions accepts: ${name}`, () => {
    assert.deepEqual(outcome(payload), permissions);
  });
}

for (const [name, payload, reason] of REJECTED) {
  test(`parsePermissions rejects: ${name}`, () => {
    assert.equal(outcome(payload), `invalid token: ${reason}`);
  });
}

test('a rejection is a structural 401 TokenError', () => {
  assert.throws(
    () => parsePermissions(Buffer.from('{"x":1}')),
    (error: unknown) => {
      assert.ok(error instanceof TokenError);
      assert.equal(error.code, 'unauthorized');
      assert.equal(error.status, 401);
      assert.equal(error.structural, true);
      return true;
    },
  );
});

test('ctxRaw is the byte-exact slice of the payload', () => {
  const ctx = '{ "é": [1, "😀", {"\\u00e9": null}] }';
  const payload = Buffer.from(`{"cmds":["ls"],"ctx":${ctx}}`);
  const parsed = parsePermissions(payload);
  const start = payload.indexOf('"ctx":') + '"ctx":'.length;
  assert.equal(parsed.ctxRaw, ctx);
  assert.deepEqual(Buffer.from(parsed.ctxRaw ?? ''), payload.subarray(start, payload.length - 1));
});

test('parsed cmds cannot be changed by a caller', () => {
  const parsed = parsePermissions(Buffer.from('{"cmds":["ls"]}'));
  assert.ok(Object.isFrozen(parsed.cmds));
});

test('DEFAULT_CMDS is the SPEC list and frozen', () => {
  assert.deepEqual(DEFAULT_CMDS, [
    'help',
    'ls',
    'new',
    'whoami',
    'ssh-key list',
    'share show',
    'svc0-to-svc1',
    'team',
    'team members',
  ]);
  assert.ok(Object.isFrozen(DEFAULT_CMDS));
});

test('effectiveCmds applies the default only when cmds is absent', () => {
  assert.equal(effectiveCmds(parsePermissions(Buffer.from('{}'))), DEFAULT_CMDS);
  assert.deepEqual(effectiveCmds(parsePermissions(Buffer.from('{"cmds":[]}'))), []);
  assert.deepEqual(effectiveCmds({ cmds: ['whoami'] }), ['whoami']);
});

const SERIALIZED: [Permissions, string][] = [
  [{}, '{}'],
  [{ exp: 1900000000 }, '{"exp":1900000000}'],
  [
    { ctxRaw: '[ 1, {"a" : null} ]', cmds: ['ssh-key list'], nbf: 1000000000, exp: 2000000000 },
    '{"exp":2000000000,"nbf":1000000000,"cmds":["ssh-key list"],"ctx":[ 1, {"a" : null} ]}',
  ],
  [{ cmds: [] }, '{"cmds":[]}'],
  [{ cmds: ['a\nb', 'é'] }, '{"cmds":["a\\nb","é"]}'],
  [{ ctxRaw: '"x"' }, '{"ctx":"x"}'],
];

for (const [permissions, text] of SERIALIZED) {
  test(`serializePermissions writes ${text}`, () => {
    assert.equal(serializePermissions(permissions), text);
    assert.deepEqual(parsePermissions(Buffer.from(text)), permissions);
  });
}

const UNSERIALIZABLE: [string, Permissions, string][] = [
  ['a fractional exp', { exp: 1900000000.5 }, 'exp must be an integer'],
  ['NaN as nbf', { nbf: Number.NaN }, 'nbf must be an integer'],
  ['an exp written with an exponent', { exp: 1e21 }, 'exp must be an integer'],
  ['exp 0', { exp: 0 }, 'exp out of range'],
  ['an empty command', { cmds: ['ls', ''] }, 'cmds must be an array of non-empty strings'],
  ['ctxRaw that smuggles in a field', { ctxRaw: '1,"exp":2000000000' }, 'invalid permissions JSON'],
  ['ctxRaw with surrounding whitespace', { ctxRaw: ' 1' }, 'invalid permissions JSON'],
  ['empty ctxRaw', { ctxRaw: '' }, 'invalid permissions JSON'],
  [
    'ctxRaw with a duplicate key',
    { ctxRaw: '{"a":1,"a":2}' },
    'duplicate key "a" in permissions JSON',
  ],
  ['ctxRaw with a raw LF', { ctxRaw: '[1,\n2]' }, 'permissions JSON contains CR or LF'],
  [
    'ctxRaw with a raw lone surrogate',
    { ctxRaw: '"\ud800"' },
    'permissions JSON is not valid UTF-8',
  ],
];

for (const [name, permissions, reason] of UNSERIALIZABLE) {
  test(`serializePermissions refuses ${name}`, () => {
    assert.throws(() => serializePermissions(permissions), {
      name: 'TokenError',
      reason: 'bad_permissions',
      message: `invalid token: ${reason}`,
    });
  });
}
