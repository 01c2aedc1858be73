import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExectlError } from '../../../../src/errors.js';
import { emojiFor, VM_EMOJIS } from '../../../../src/service/rules/emoji.js';
import { ADJECTIVES, NOUNS, randomVmName } from '../../../../src/service/rules/random-name.js';
import { parseExpiry } from '../../../../src/service/commands/shared/token-options.js';
import {
  checkEmail,
  checkKeyName,
  checkTag,
  checkVmName,
  parseEnv,
  parsePort,
  quote,
  sameEmail,
} from '../../../../src/service/rules/validate.js';

/** The thrown 422 message, or 'ok'. */
function outcome(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (error) {
    assert.ok(error instanceof ExectlError);
    assert.equal(error.status, 422);
    return error.message;
  }
}

const VM_ERR = (n: string) =>
  `invalid vm name ${JSON.stringify(n)}: use 2 to 63 lowercase letters, digits or dashes, starting with a letter and not ending with a dash`;

test('vm names are DNS labels', () => {
  const table: [string, string][] = [
    ['ab', 'ok'],
    ['web-1', 'ok'],
    ['a0', 'ok'],
    ['a--b', 'ok'],
    [`a${'b'.repeat(62)}`, 'ok'],
    [`a${'b'.repeat(63)}`, VM_ERR(`a${'b'.repeat(63)}`)],
    ['a', VM_ERR('a')],
    ['', VM_ERR('')],
    ['1ab', VM_ERR('1ab')],
    ['-ab', VM_ERR('-ab')],
    ['ab-', VM_ERR('ab-')],
    ['Web', VM_ERR('Web')],
    ['we_b', VM_ERR('we_b')],
    ['we.b', VM_ERR('we.b')],
    ['wéb', VM_ERR('wéb')],
    ['web\n', VM_ERR('web\n')],
  ];
  for (const [name, expected] of table)
    assert.equal(
      outcome(() => checkVmName(name)),
      expected,
      name,
    );
});

const TAG_ERR = (t: string) =>
  `invalid tag ${JSON.stringify(t)}: use 1 to 63 lowercase letters, digits, "_" or "-", starting with a letter`;

test('tags', () => {
  const table: [string, string][] = [
    ['a', 'ok'],
    ['prod', 'ok'],
    ['eu_west-1', 'ok'],
    ['a-', 'ok'],
    [`a${'b'.repeat(62)}`, 'ok'],
    [`a${'b'.repeat(63)}`, TAG_ERR(`a${'b'.repeat(63)}`)],
    ['', TAG_ERR('')],
    ['_a', TAG_ERR('_a')],
    ['9a', TAG_ERR('9a')],
    ['A', TAG_ERR('A')],
    ['a b', TAG_ERR('a b')],
    ['a:b', TAG_ERR('a:b')],
  ];
  for (const [tag, expected] of table)
    assert.equal(
      outcome(() => checkTag(tag)),
      expected,
      tag,
    );
});

test('--env KEY=VALUE', () => {
  assert.deepEqual(parseEnv([]), {});
  assert.deepEqual(parseEnv(['A=1', '_b=', 'C_2=x=y', 'D= spaced ']), {
    A: '1',
    _b: '',
    C_2: 'x=y',
    D: ' spaced ',
  });
  const bad = (e: string) =>
    `invalid --env ${JSON.stringify(e)}: expected KEY=VALUE with KEY a shell variable name`;
  const table: [string[], string][] = [
    [['NOEQ'], bad('NOEQ')],
    [['=x'], bad('=x')],
    [['1A=x'], bad('1A=x')],
    [['A-B=x'], bad('A-B=x')],
    [['A B=x'], bad('A B=x')],
    [['A=1', 'A=2'], '--env A given more than once'],
    // Not a prototype trap: an own key like any other.
    [['__proto__=x', '__proto__=y'], '--env __proto__ given more than once'],
  ];
  for (const [entries, expected] of table)
    assert.equal(
      outcome(() => parseEnv(entries)),
      expected,
    );
  assert.deepEqual(Object.keys(parseEnv(['__proto__=x'])), ['__proto__']);
});

test('emails, key names, ports', () => {
  assert.equal(
    outcome(() => checkEmail('a@b')),
    'ok',
  );
  assert.equal(
    outcome(() => checkEmail('first.last+tag@sub.example.com')),
    'ok',
  );
  for (const bad of ['', 'ab', '@b', 'a@', 'a@b@c', 'a b@c', 'a@b\n']) {
    assert.equal(
      outcome(() => checkEmail(bad)),
      `invalid email ${JSON.stringify(bad)}`,
      bad,
    );
  }
  assert.ok(sameEmail('Ada@Example.COM', 'ada@example.com'));
  // ASCII folding only, as SQLite's NOCASE.
  assert.ok(!sameEmail('É@x', 'é@x'));

  const keyErr = (n: string) =>
    `invalid key name ${JSON.stringify(n)}: use 1 to 64 printable characters, not starting with "SHA256:"`;
  for (const good of ['a', 'my laptop', 'me@host', 'ключ', 'x'.repeat(64)]) {
    assert.equal(
      outcome(() => checkKeyName(good)),
      'ok',
      good,
    );
  }
  for (const bad of ['', ' a', 'a ', 'a\tb', 'a\u007f', 'SHA256:abc', 'x'.repeat(65)]) {
    const shown = bad.length > 64 ? `${bad.slice(0, 64)}...` : bad;
    assert.equal(
      outcome(() => checkKeyName(bad)),
      keyErr(shown),
      bad,
    );
  }
  assert.equal(parsePort('1024'), 1024);
  assert.equal(parsePort('65535'), 65535);
});

test('--exp', () => {
  const now = 1_740_830_400;
  assert.equal(parseExpiry('never', now), null);
  assert.equal(parseExpiry('1h', now), now + 3600);
  assert.equal(parseExpiry('30d', now), now + 30 * 86_400);
  assert.equal(parseExpiry('2w', now), now + 14 * 86_400);
  assert.equal(parseExpiry('1y', now), now + 365 * 86_400);
  assert.equal(parseExpiry('1h', 4_102_444_800 - 3600), 4_102_444_800);
  assert.equal(
    outcome(() => parseExpiry('1h', 4_102_444_800 - 3599)),
    '--exp "1h" ends after 2100-01-01, the latest a token can expire',
  );
  for (const bad of [
    '',
    '0h',
    '01d',
    '1',
    'd',
    '500ms',
    '1D',
    ' 1d',
    '1d ',
    '-1d',
    '+1d',
    '1e3d',
  ]) {
    assert.equal(
      outcome(() => parseExpiry(bad, now)),
      `invalid --exp ${JSON.stringify(bad)}: use a duration such as 30s, 15m, 1h, 7d, 2w or 1y, or never`,
      bad,
    );
  }
});

test('quote keeps messages on one short line', () => {
  assert.equal(quote('web'), '"web"');
  assert.equal(quote('a"b\\c\n\u001b'), '"a\\"b\\\\c\\n\\u001b"');
  assert.equal(quote('x'.repeat(65)), `"${'x'.repeat(64)}..."`);
});

test('random names are valid VM names made of the word lists', () => {
  for (const word of [...ADJECTIVES, ...NOUNS]) assert.match(word, /^[a-z]+$/);
  assert.equal(new Set(ADJECTIVES).size, 40);
  assert.equal(new Set(NOUNS).size, 40);
  for (let i = 0; i < 200; i += 1) {
    const name = randomVmName();
    assert.equal(
      outcome(() => checkVmName(name)),
      'ok',
      name,
    );
    const [adjective, noun] = name.split('-');
    assert.ok(ADJECTIVES.includes(adjective!) && NOUNS.includes(noun!), name);
  }
});

test('emojis: 32 distinct single astral code points; a name always gets the same one', () => {
  assert.equal(VM_EMOJIS.length, 32);
  assert.equal(new Set(VM_EMOJIS).size, 32);
  for (const emoji of VM_EMOJIS) {
    assert.equal(emoji.length, 2, emoji);
    assert.ok(emoji.codePointAt(0)! >= 0x1f000, emoji);
  }
  assert.equal(emojiFor('web'), emojiFor('web'));
  const seen = new Set(Array.from({ length: 400 }, (_, i) => emojiFor(`vm-${i}`)));
  assert.equal(seen.size, 32, 'names spread over every emoji');
});
