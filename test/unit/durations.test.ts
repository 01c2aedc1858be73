import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ExectlError } from '../../src/errors.js';
import {
  formatDuration,
  parseDuration,
  parseDurationMs,
  parseTimeFlag,
} from '../../src/durations.js';

const NOT_A_TIME_HINT = 'use e.g. 30s, 15m, 1h, 7d, 2w or 1y, or a unix time such as 1900000000';

test('parseDuration: table', () => {
  const cases: [string, number | undefined][] = [
    ['30s', 30],
    ['15m', 900],
    ['1h', 3600],
    ['7d', 604_800],
    ['2w', 1_209_600],
    ['1y', 31_536_000],
    ['90m', 5400],
    ['0s', undefined],
    ['01h', undefined],
    ['1', undefined],
    ['1H', undefined],
    [' 1h', undefined],
    ['1h ', undefined],
    ['1.5h', undefined],
    ['-1h', undefined],
    ['+1h', undefined],
    ['1hh', undefined],
    ['h', undefined],
    ['', undefined],
    ['1 h', undefined],
  ];
  for (const [text, seconds] of cases) assert.equal(parseDuration(text), seconds, text);
});

test('parseTimeFlag: durations count from now, integers are unix times', () => {
  const now = 1_700_000_000;
  assert.equal(parseTimeFlag('--exp', '1h', now), now + 3600);
  assert.equal(parseTimeFlag('--nbf', '2w', now), now + 1_209_600);
  assert.equal(parseTimeFlag('--exp', '1900000000', now), 1_900_000_000);
  assert.equal(parseTimeFlag('--exp', '0', now), 0);
});

test('parseTimeFlag: errors name the flag and the value', () => {
  const cases: [string, string, string, string][] = [
    ['--exp', 'soon', '--exp "soon" is neither a duration nor a unix time', NOT_A_TIME_HINT],
    ['--nbf', '-5', '--nbf "-5" is neither a duration nor a unix time', NOT_A_TIME_HINT],
    ['--exp', '1e9', '--exp "1e9" is neither a duration nor a unix time', NOT_A_TIME_HINT],
    [
      '--exp',
      '99999999999999999999',
      '--exp "99999999999999999999" is too far in the future',
      'tokens may not outlive the year 2100',
    ],
    [
      '--exp',
      '9999999999999999y',
      '--exp "9999999999999999y" is too far in the future',
      'tokens may not outlive the year 2100',
    ],
  ];
  for (const [flag, text, message, hint] of cases) {
    assert.throws(
      () => parseTimeFlag(flag, text, 1_700_000_000),
      (err: unknown) =>
        err instanceof ExectlError &&
        err.code === 'usage' &&
        err.message === message &&
        err.hint === hint,
      text,
    );
  }
});

test('parseTimeFlag: any input gives a safe integer or a usage error', () => {
  fc.assert(
    fc.property(fc.string(), (text) => {
      try {
        assert.ok(Number.isSafeInteger(parseTimeFlag('--exp', text, 1_700_000_000)));
      } catch (err) {
        assert.ok(err instanceof ExectlError && err.code === 'usage', String(err));
      }
    }),
  );
});

test('formatDuration: the largest whole unit, rounded down', () => {
  const cases: [number, string][] = [
    [0, '0s'],
    [59, '59s'],
    [59.9, '59s'],
    [60, '1m'],
    [3599, '59m'],
    [3600, '1h'],
    [86_399, '23h'],
    [86_400, '1d'],
    [31_535_999, '364d'],
    [31_536_000, '1y'],
    [5 * 31_536_000 + 5, '5y'],
    [-5, '0s'],
  ];
  for (const [seconds, text] of cases) assert.equal(formatDuration(seconds), text, String(seconds));
});

test('formatDuration of a whole number of one unit gives that duration back', () => {
  const oneUnit = fc.oneof(
    ...(
      [
        ['s', 59],
        ['m', 59],
        ['h', 23],
        ['d', 364],
        ['y', 10_000],
      ] as const
    ).map(([unit, max]) => fc.tuple(fc.integer({ min: 1, max }), fc.constant(unit))),
  );
  fc.assert(
    fc.property(oneUnit, ([n, unit]) => {
      assert.equal(formatDuration(parseDuration(`${n}${unit}`)!), `${n}${unit}`);
    }),
  );
});

test('parseDurationMs: ms too; parseDuration refuses spans that are not whole seconds', () => {
  const cases: [string, number | undefined, number | undefined][] = [
    ['500ms', 500, undefined],
    ['2000ms', 2000, 2],
    ['60s', 60_000, 60],
    ['1m', 60_000, 60],
    ['1d', 86_400_000, 86_400],
    ['0s', undefined, undefined],
    ['1 s', undefined, undefined],
  ];
  for (const [text, ms, seconds] of cases) {
    assert.deepEqual([parseDurationMs(text), parseDuration(text)], [ms, seconds], text);
  }
});
