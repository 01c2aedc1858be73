import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  entropyPerChar,
  secretLookingPaths,
} from '../../../../../src/inspection/secret-heuristic.js';

const RANDOM_B64 = 'q8Zr2LmW0vXy7TbNc4Hs9KfJd1PgAe6U'; // 32 chars, all distinct: 5 bits/char
const SHA1_HEX = 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3';
const UUID = '123e4567-e89b-12d3-a456-426614174000';

test('secretLookingPaths: table', () => {
  const cases: [string, unknown, string[]][] = [
    ['nothing', { ticket: 42, note: 'hello world' }, []],
    [
      'key names',
      { password: 'x', Secret: 'x', api_key: 'x', 'api-key': 'x', apiKey: 'x', github_token: 'x' },
      [
        'ctx.Secret',
        'ctx.api_key',
        'ctx.apiKey',
        'ctx.github_token',
        'ctx.password',
        'ctx["api-key"]',
      ],
    ],
    [
      'more key names',
      { private_key: 'x', passphrase: 'x', passwd: 'x', credentials: 'x' },
      ['ctx.credentials', 'ctx.passphrase', 'ctx.passwd', 'ctx.private_key'],
    ],
    [
      'an empty or non-string value under a secret name',
      { password: '', token: 42, secret: null, api_key: true },
      [],
    ],
    [
      'nested and in arrays',
      { db: { password: 'p' }, list: [{ token: 't' }], tokens: ['a', 'b'] },
      ['ctx.db.password', 'ctx.list[0].token', 'ctx.tokens[0]', 'ctx.tokens[1]'],
    ],
    ['PEM', { k: '-----BEGIN OPENSSH PRIVATE KEY-----' }, ['ctx.k']],
    ['GitHub', { a: 'ghp_abc', b: 'github_pat_11', c: 'gho_x' }, ['ctx.a', 'ctx.b', 'ctx.c']],
    [
      'sk-, Slack, AWS',
      { a: 'sk-proj-1', b: 'xoxb-1-2', c: 'AKIAIOSFODNN7EXAMPLE' },
      ['ctx.a', 'ctx.b', 'ctx.c'],
    ],
    ['a short AKIA word is not an AWS key', { c: 'AKIA' }, []],
    ['random-looking', { r: RANDOM_B64 }, ['ctx.r']],
    ['too short to judge', { r: RANDOM_B64.slice(0, 31) }, []],
    ['hex digests and UUIDs are not flagged', { sha: SHA1_HEX, id: UUID }, []],
    [
      'URLs and sentences are not flagged',
      { u: `https://example.com/${RANDOM_B64}`, s: `a ${RANDOM_B64}` },
      [],
    ],
    ['a bare string ctx', RANDOM_B64, ['ctx']],
    ['numbers, booleans, null', [1, true, null], []],
  ];
  for (const [name, ctx, paths] of cases) {
    assert.deepEqual(secretLookingPaths(JSON.stringify(ctx)), [...paths].sort(), name);
  }
});

test('entropyPerChar: table', () => {
  const cases: [string, number][] = [
    ['aaaa', 0],
    ['abab', 1],
    ['abcd', 2],
    [RANDOM_B64, 5],
  ];
  for (const [text, bits] of cases) assert.equal(entropyPerChar(text), bits, text);
});

test('any JSON value is walked without throwing, and paths start at ctx', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      for (const path of secretLookingPaths(JSON.stringify(value))) assert.match(path, /^ctx/);
    }),
  );
});

test('deep nesting does not overflow the stack', () => {
  const depth = 100_000;
  const ctx = `${'['.repeat(depth)}"${RANDOM_B64}"${']'.repeat(depth)}`;
  assert.deepEqual(secretLookingPaths(ctx), [`ctx${'[0]'.repeat(depth)}`]);
});
