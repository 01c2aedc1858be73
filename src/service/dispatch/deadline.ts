import { ExectlError } from '../../errors.js';

/** The time limit of one command, and the signal that tells it to stop. */
export interface Deadline {
  /** Aborted when the time is up (reason: the timeout error) or the outer signal aborts. */
  readonly signal: AbortSignal;
  /** Settles like `work`, unless the deadline passes first: then rejects with the reason. */
  race<T>(work: Promise<T>): Promise<T>;
  /** Stops the clock once the command has settled. */
  clear(): void;
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
 * request past the limit. When `outer` aborts first (client gone, server stopping), the same
 * happens with `outer.reason`.
 */
export function startDeadline(deadlineMs: number, outer?: AbortSignal): Deadline {
  const controller = new AbortController();
  let rejectExpired: (reason: unknown) => void = () => {};
  const expired = new Promise<never>((_, reject) => {
    rejectExpired = reject;
  });
  // Observed only through race(); a stream whose start() is never called must not turn the
  // expiry into an unhandled rejection.
  expired.catch(() => {});

  const clear = (): void => {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuterAbort);
  };
  const expire = (reason: unknown): void => {
    clear();
    // Reject first: abort listeners run synchronously, and a command that settles inside one
    // must not win the race against its own deadline.
    rejectExpired(reason);
    controller.abort(reason);
  };
  const onOuterAbort = (): void => expire(outer?.reason);
  const timer = setTimeout(
    () =>
      expire(
        new ExectlError('timeout', timeoutMessage(deadlineMs), {
          hint: 'start long-running work in the background (nohup ... &) and poll it',
        }),
      ),
    deadlineMs,
  );
  if (outer?.aborted) expire(outer.reason);
  else outer?.addEventListener('abort', onOuterAbort, { once: true });

  return {
    signal: controller.signal,
    race: (work) => Promise.race([work, expired]),
    clear,
  };
}
