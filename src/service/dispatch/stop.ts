/**
 * How a front end tells a running command to stop early (its client went away, the server is
 * shutting down): `subscribe(stop)` registers `stop` to be called once with the reason, and
 * returns the function that unregisters it. When the reason already holds at subscription,
 * `stop` is called at once.
 *
 * Why not an AbortSignal: on the `/exec` path every request would need its own AbortController
 * plus listeners on the server's shutdown signal, which cost more than the whole `whoami`
 * command. A callback is nearly free, and the dispatcher makes an AbortSignal only for a command
 * that asks for one (`ctx.signal`).
 */
export type StopSubscription = (stop: (reason: unknown) => void) => () => void;

/**
 * The {@link StopSubscription} of an AbortSignal: `stop` runs with `signal.reason` when it
 * aborts (at once when it already has).
 */
export function stopWhenAborted(signal: AbortSignal): StopSubscription {
  return (stop) => {
    if (signal.aborted) {
      stop(signal.reason);
      return () => {};
    }
    const onAbort = () => stop(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  };
}
