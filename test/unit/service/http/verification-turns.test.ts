// The pace of signature checks for an address out of failed verifications: TURNS_PER_SECOND at
// once, then one each 1/TURNS_PER_SECOND s, first come first served, one waiter per connection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import {
  TURNS_PER_SECOND,
  VerificationTurns,
} from '../../../../src/service/http/verification-turns.js';

const refusal = () => new Error('refused');

/**
 * A clock that stands still until `go()`, then follows real time: a burst taken on it is one
 * instant however long the process is descheduled in it (100 ms would refill a turn), and the
 * turns given later come on real timers.
 */
function standingClock() {
  let stopped: number | undefined = Date.now();
  return { now: () => stopped ?? Date.now(), go: () => (stopped = undefined) };
}

test('a burst of turns at once, then the rest in the order they came', async () => {
  const clock = standingClock();
  const turns = new VerificationTurns(clock.now);
  for (let i = 0; i < TURNS_PER_SECOND; i++) {
    assert.equal(turns.turn('a', new EventEmitter(), refusal), null, `turn ${i}`);
  }
  // Another address has its own pace.
  assert.equal(turns.turn('b', new EventEmitter(), refusal), null);
  const order: number[] = [];
  const waiting = [0, 1, 2].map((n) =>
    turns.turn('a', new EventEmitter(), refusal)!.then(() => order.push(n)),
  );
  assert.deepEqual(order, []);
  clock.go();
  await Promise.all(waiting);
  assert.deepEqual(order, [0, 1, 2]);
});

test('one waiter per connection; a connection that closes leaves its place to the next', async () => {
  const clock = standingClock();
  const turns = new VerificationTurns(clock.now);
  for (let i = 0; i < TURNS_PER_SECOND; i++) void turns.turn('a', new EventEmitter(), refusal);
  const [first, second] = [new EventEmitter(), new EventEmitter()];
  const outcomes: string[] = [];
  const track = (name: string, turn: Promise<void> | null) =>
    turn!.then(
      () => outcomes.push(`${name} went`),
      (err: Error) => outcomes.push(`${name} ${err.message}`),
    );
  const one = track('first', turns.turn('a', first, refusal));
  const pipelined = track('pipelined', turns.turn('a', first, refusal));
  const two = track('second', turns.turn('a', second, refusal));
  clock.go();
  await pipelined;
  assert.deepEqual(outcomes, ['pipelined refused']);
  first.emit('close');
  await Promise.all([one, two]);
  assert.deepEqual(outcomes, ['pipelined refused', 'first refused', 'second went']);
  assert.equal(first.listenerCount('close') + second.listenerCount('close'), 0);
});
