import type { ServerResponse } from 'node:http';
import type { StopSubscription } from '../dispatch/stop.js';

/**
 * The `/exec` commands in flight, and why each must stop early: its client hung up before the
 * answer was finished, or the server is shutting down (which stops them all at once).
 *
 * One listener on the shutdown signal serves every request; a request costs a `close` listener
 * and a set entry while its command runs — no AbortController of its own (see `StopSubscription`).
 */
export class InFlightCommands {
  readonly #stops = new Set<(reason: unknown) => void>();
  readonly #shutdown: AbortSignal;

  constructor(shutdown: AbortSignal) {
    this.#shutdown = shutdown;
    shutdown.addEventListener(
      'abort',
      () => {
        for (const stop of [...this.#stops]) stop(shutdown.reason);
      },
      { once: true },
    );
  }

  /**
   * The stop subscription for the request answered by `res`, for `dispatch`. Call it when the
   * request arrives, so that a client leaving while its body is still read is noticed too.
   */
  track(res: ServerResponse): StopSubscription {
    let clientGone: Error | undefined;
    let stopCommand: ((reason: unknown) => void) | undefined;
    res.on('close', () => {
      if (res.writableFinished) return;
      clientGone = new Error('client disconnected');
      stopCommand?.(clientGone);
    });
    return (stop) => {
      const reason = this.#shutdown.aborted ? this.#shutdown.reason : clientGone;
      if (reason !== undefined) {
        stop(reason);
        return () => {};
      }
      // Whichever comes first, hang-up or shutdown, stops the command; the other finds nothing.
      const unsubscribe = () => {
        stopCommand = undefined;
        this.#stops.delete(stopOnce);
      };
      const stopOnce = (why: unknown) => {
        unsubscribe();
        stop(why);
      };
      stopCommand = stopOnce;
      this.#stops.add(stopOnce);
      return unsubscribe;
    };
  }
}
