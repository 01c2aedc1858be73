// The limit on concurrent system lookups: never more than its maximum at once, first come first
// served, and a failing task hands its turn on like a finished one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Turns } from '../../../../src/service/integrations/lookup-turns.js';

test('Turns: at most max run at once, in order of arrival; failures hand the turn on', async () => {
  const turns = new Turns(2);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const release: (() => void)[] = [];
  const task = (n: number) =>
    turns.run(async () => {
      started.push(n);
      running += 1;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => release.push(resolve));
      running -= 1;
      if (n === 1) throw new Error('slow nameserver');
      return n;
    });
  const all = [1, 2, 3, 4, 5].map(task);
  const settled = Promise.allSettled(all);
  // Release one waiting task at a time until all have run.
  for (let released = 0; released < 5; released += 1) {
    while (release.length === 0) await new Promise((resolve) => setImmediate(resolve));
    release.shift()!();
  }
  const results = await settled;
  assert.equal(most, 2);
  assert.deepEqual(started, [1, 2, 3, 4, 5]);
  assert.equal(results[0]!.status, 'rejected');
  assert.deepEqual(
    results.slice(1).map((r) => (r as PromiseFulfilledResult<number>).value),
    [2, 3, 4, 5],
  );
  // A new task after all that runs at once: no turn was lost.
  assert.equal(await turns.run(async () => 'free'), 'free');
});
