// A client address that used up its failed verifications gets its 429 only after a pause.
// Over HTTP/1.1 a connection carries one request at a time, so a flood over keep-alive
// connections (wrk, a botnet's pool) then costs the event loop at most one answer per
// connection per HOLD_BACK_MS, instead of as many as it can send; other clients' requests are
// no longer queued behind it. The waiting answers cost a timer each, on connections the client
// holds open anyway.
import { setTimeout as sleep } from 'node:timers/promises';
import { refusedForFailures } from './failures-by-address.js';

/** How long a refused address waits for its 429: the failure bucket's pace, one a second. */
export const HOLD_BACK_MS = 1_000;

/**
 * `check()`'s result; its 429 for an address out of failures is thrown after the pause. A
 * check that answers at once (the usual case: a token verified or remembered) is returned as
 * it is, without a promise of its own: this runs on every /exec request.
 */
export function heldBack<T>(check: () => T | Promise<T>): T | Promise<T> {
  let result: T | Promise<T>;
  try {
    result = check();
  } catch (err) {
    return holdThenThrow(err);
  }
  return result instanceof Promise ? result.catch(holdThenThrow) : result;
}

async function holdThenThrow(err: unknown): Promise<never> {
  if (refusedForFailures(err)) await sleep(HOLD_BACK_MS);
  throw err;
}
