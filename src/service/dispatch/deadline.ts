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
  /** The time is up or the command was stopped (without making the signal). */
  readonly expired: boolean;
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
  return new CommandDeadline(deadlineMs, stopWhen);
}

// A class rather than closures: one is made per request, and its methods cost nothing per
// instance.
class CommandDeadline implements Deadline {
  readonly #timer: NodeJS.Timeout;
  #unsubscribe: (() => void) | undefined;
  #controller: AbortController | undefined;
  #expired: { reason: unknown } | undefined;
  /** Rejects each race; calling one after its race has settled does nothing. */
  readonly #rejecters: ((reason: unknown) => void)[] = [];

  constructor(deadlineMs: number, stopWhen: StopSubscription | undefined) {
    this.#timer = setTimeout(
      () =>
        this.#expire(
          new ExectlError('timeout', timeoutMessage(deadlineMs), {
            hint: 'start long-running work in the background (nohup ... &) and poll it',
          }),
        ),
      deadlineMs,
    );
    if (stopWhen !== undefined) {
      const unsubscribe = stopWhen((reason) => this.#expire(reason));
      // A stop that already held has expired the deadline during the call: nothing to keep.
      if (this.#expired === undefined) this.#unsubscribe = unsubscribe;
      else unsubscribe();
    }
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#expired !== undefined) this.#controller.abort(this.#expired.reason);
    }
    return this.#controller.signal;
  }

  race<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#expired !== undefined) reject(this.#expired.reason);
      else this.#rejecters.push(reject);
      work.then(resolve, reject);
    });
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  get expired(): boolean {
    return this.#expired !== undefined;
  }

  throwIfExpired(): void {
    if (this.#expired !== undefined) throw this.#expired.reason;
  }

  #expire(reason: unknown): void {
    if (this.#expired !== undefined) return;
    this.#expired = { reason };
    this.clear();
    // Reject first: abort listeners run synchronously, and a command that settles inside one
    // must not win the race against its own deadline.
    for (const reject of this.#rejecters) reject(reason);
    this.#controller?.abort(reason);
  }
}
