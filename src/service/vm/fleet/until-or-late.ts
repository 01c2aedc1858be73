// Waiting for long work until a moment, and no longer: `new`'s 25 s rule (SPEC §4, §4a).
import { setTimeout as sleep } from 'node:timers/promises';

/** What {@link untilOrLate} gives when the moment came first. */
export const LATE = Symbol('late');

/**
 * `work`'s value once it settled, or {@link LATE} at `until` (ms since the epoch) if it has
 * not; rejects when `work` rejects in time. Work still going on keeps going.
 */
export async function untilOrLate<T>(work: Promise<T>, until: number): Promise<T | typeof LATE> {
  const timer = new AbortController();
  const late: Promise<typeof LATE> = sleep(Math.max(0, until - Date.now()), LATE, {
    signal: timer.signal,
  }).then(
    () => LATE,
    () => LATE,
  );
  try {
    return await Promise.race([work, late]);
  } finally {
    timer.abort();
  }
}
