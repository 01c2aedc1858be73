import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rfc3339 } from '../../src/time.js';

const CASES: readonly [number, string][] = [
  [0, '1970-01-01T00:00:00Z'],
  [1_735_787_045, '2025-01-02T03:04:05Z'],
  // A fraction is cut, never rounded up into the next second.
  [1_735_787_045.999, '2025-01-02T03:04:05Z'],
  [4_102_444_799, '2099-12-31T23:59:59Z'],
];

for (const [seconds, text] of CASES) {
  test(`rfc3339(${seconds}) is ${text}`, () => {
    assert.equal(rfc3339(seconds), text);
  });
}
