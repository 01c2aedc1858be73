import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  RateLimiter,
  parseRateLimit,
  takeOrRefuse,
} from '../../../../src/service/rules/rate-limit.js';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

test('the default 60/60s allows a burst of 60, then one more each second', () => {
  const c = clock();
  const limiter = new RateLimiter({ capacity: 60, refillMs: 60_000 }, c.now);
  for (let i = 0; i < 60; i++)
    assert.deepEqual(limiter.take('k'), { allowed: true }, `request ${i}`);
  assert.deepEqual(limiter.take('k'), { allowed: false, retryAfterSeconds: 1 });
  c.advance(999);
  assert.equal(limiter.take('k').allowed, false);
  c.advance(1);
  assert.deepEqual(limiter.take('k'), { allowed: true });
  assert.equal(limiter.take('k').allowed, false);
});

test('takeOrRefuse: a 429 with Retry-After once the bucket is empty; no limiter, no limit', () => {
  const c = clock();
  const limiter = new RateLimiter({ capacity: 1, refillMs: 5_000 }, c.now);
  takeOrRefuse(limiter, 'k');
  assert.throws(() => takeOrRefuse(limiter, 'k'), {
    code: 'rate_limited',
    status: 429,
    message: 'rate limit exceeded',
    headers: { 'Retry-After': '5' },
  });
  for (let i = 0; i < 100; i++) takeOrRefuse(null, 'k');
});

test('Retry-After is the whole seconds until the next request would pass', () => {
  const c = clock();
  const limiter = new RateLimiter({ capacity: 2, refillMs: 10_000 }, c.now);
  limiter.take('k');
  limiter.take('k');
  assert.deepEqual(limiter.take('k'), { allowed: false, retryAfterSeconds: 5 });
  c.advance(4_200);
  assert.deepEqual(limiter.take('k'), { allowed: false, retryAfterSeconds: 1 });
  c.advance(800);
  assert.deepEqual(limiter.take('k'), { allowed: true });
});

test('buckets are per key: an empty bucket does not affect another key', () => {
  const c = clock();
  const limiter = new RateLimiter({ capacity: 1, refillMs: 60_000 }, c.now);
  assert.equal(limiter.take('a').allowed, true);
  assert.equal(limiter.take('a').allowed, false);
  assert.equal(limiter.take('b').allowed, true);
});

test('peek tells whether a request would pass without taking it', () => {
  const c = clock();
  const limiter = new RateLimiter({ capacity: 2, refillMs: 2_000 }, c.now);
  for (let i = 0; i < 3; i++) assert.deepEqual(limiter.peek('a'), { allowed: true });
  limiter.take('a');
  limiter.take('a');
  assert.deepEqual(limiter.peek('a'), { allowed: false, retryAfterSeconds: 1 });
  c.advance(1_000);
  assert.deepEqual(limiter.peek('a'), { allowed: true });
});

test('a bucket never holds more than its capacity, however long it rests', () => {
  const c = clock();
  const limiter = new RateLimiter({ capacity: 3, refillMs: 3_000 }, c.now);
  limiter.take('k');
  c.advance(3_600_000);
  for (let i = 0; i < 3; i++) assert.equal(limiter.take('k').allowed, true);
  assert.equal(limiter.take('k').allowed, false);
});

test('parseRateLimit', () => {
  const cases: [string, ReturnType<typeof parseRateLimit>][] = [
    ['60/60s', { capacity: 60, refillMs: 60_000 }],
    ['10/1m', { capacity: 10, refillMs: 60_000 }],
    ['5/2h', { capacity: 5, refillMs: 7_200_000 }],
    ['100/500ms', { capacity: 100, refillMs: 500 }],
    ['0', null],
    [
      '0/10s',
      {
        error:
          'invalid rate limit "0/10s": a bucket of 0 refuses everything; use 0 alone to turn the limit off',
      },
    ],
    ['60', { error: 'invalid rate limit "60": expected N/DURATION such as 60/60s, or 0' }],
    ['60/s', { error: 'invalid rate limit "60/s": expected N/DURATION such as 60/60s, or 0' }],
    ['-1/10s', { error: 'invalid rate limit "-1/10s": expected N/DURATION such as 60/60s, or 0' }],
    ['10/0s', { error: 'invalid rate limit "10/0s": expected N/DURATION such as 60/60s, or 0' }],
    ['10/1d', { capacity: 10, refillMs: 86_400_000 }],
  ];
  for (const [input, expected] of cases) assert.deepEqual(parseRateLimit(input), expected, input);
});
