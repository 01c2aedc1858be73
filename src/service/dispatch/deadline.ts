import { ExectlError } from '../../errors.js';
import type { StopSubscription } from './stop.js';

/** The time limit of one command, and the signal that tells it to stop. */
export interface Deadline {
  /**
   * Aborted when the time is up (reason: the timeout error) or the front end stops the command.
   * Made on first use: most commands never look at it.
   */
  readonly signal: AbortSignal;
  /** Settles like `work`, unless the deadline passes first: then rejects with the reason. */
  race<T>(work: Promise<T>): Promise<T>;
  /** Stops the clock once the command has settled. */
  clear(): void;
  /** Throws the reason when the time is already up or the command was already stopped. */
  throwIfExpired(): void;
}

/**
 * `command timed out after 30s` for 30000 ms; shorter test deadlines read `after 0.2s`.
 */
export function timeoutMessage(deadlineMs: number): string {
  return `command timed out after ${deadlineMs / 1000}s`;
}

/**
 * Starts the clock for one command. When `deadlineMs` passes, the signal aborts with
 * `ExectlError('timeout', timeoutMessage(deadlineMs))` and {@link Deadline.race} rejects with
 * it, without waiting for the command: a command that ignores its signal cannot hold the
 * request past the limit. When `stopWhen` fires first (client gone, server stopping), the same
 * happens with its reason — at once if it already holds.
 */
export function startDeadline(deadlineMs: number, stopWhen?: StopSubscription): Deadline {
  let controller: AbortController | undefined;
  let expiredWith: { reason: unknown } | undefined;
  let rejectExpired: (reason: unknown) => void = () => {};
  const expired = new Promise<never>((_, reject) => {
    rejectExpired = reject;
  });
  // Observed only through race(); a stream whose start() is never called must not turn the
  // expiry into an unhandled rejection.
  expired.catch(() => {});

  let unsubscribe = (): void => {};
  const clear = (): void => {
    clearTimeout(timer);
    unsubscribe();
  };
  const expire = (reason: unknown): void => {
    if (expiredWith !== undefined) return;
    expiredWith = { reason };
    clear();
    // Reject first: abort listeners run synchronously, and a command that settles inside one
    // must not win the race against its own deadline.
    rejectExpired(reason);
    controller?.abort(reason);
  };
  const timer = setTimeout(
    () =>
      expire(
        new ExectlError('timeout', timeoutMessage(deadlineMs), {
          hint: 'start long-running work in the background (nohup ... &) and poll it',
        }),
      ),
    deadlineMs,
  );
  if (stopWhen !== undefined) {
    const stopped = stopWhen(expire);
    // A stop that already held has expired the deadline during the call: nothing to keep.
    if (expiredWith === undefined) unsubscribe = stopped;
    else stopped();
  }

  return {
    get signal() {
      if (controller === undefined) {
        controller = new AbortController();
        if (expiredWith !== undefined) controller.abort(expiredWith.reason);
      }
      return controller.signal;
    },
    race: (work) => Promise.race([work, expired]),
    clear,
    throwIfExpired() {
      if (expiredWith !== undefined) throw expiredWith.reason;
    },
  };
}
