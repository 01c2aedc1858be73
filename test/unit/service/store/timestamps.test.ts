import { test } from 'node:test';
import assert from 'node:assert/strict';
import { timestampClock, toTimestamp } from '../../../../src/service/store/context.js';

test('toTimestamp drops the milliseconds: RFC 3339 UTC with whole seconds', () => {
  assert.equal(toTimestamp(new Date('2025-01-02T03:04:05.678Z')), '2025-01-02T03:04:05Z');
  assert.equal(toTimestamp(new Date(0)), '1970-01-01T00:00:00Z');
});

test('timestampClock follows its clock second by second, forwards and backwards', () => {
  const times = [
    '2025-01-02T03:04:05.001Z',
    '2025-01-02T03:04:05.999Z',
    '2025-01-02T03:04:06.000Z',
    '2025-01-02T03:04:04.500Z',
    '2030-12-31T23:59:59.999Z',
  ];
  let i = 0;
  const clock = timestampClock(() => new Date(times[i++]!));
  assert.deepEqual(
    times.map(() => clock()),
    [
      '2025-01-02T03:04:05Z',
      '2025-01-02T03:04:05Z',
      '2025-01-02T03:04:06Z',
      '2025-01-02T03:04:04Z',
      '2030-12-31T23:59:59Z',
    ],
  );
});
