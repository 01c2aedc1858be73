// Stopping `exectl serve` (SPEC §7): the first SIGINT/SIGTERM asks for a graceful stop; a
// second one forces the exit.

/** The part of `process` the stop handling uses; tests of the CLI can pass their own. */
export interface SignalSource {
  readonly pid: number;
  on(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  removeListener(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  kill(pid: number, signal: NodeJS.Signals): unknown;
}

interface StopRequest {
  /** Resolves with the first stop signal received. */
  readonly requested: Promise<NodeJS.Signals>;
  /** The first stop signal received so far, if any. */
  readonly received: NodeJS.Signals | undefined;
  /** Stops listening for the signals. */
  dispose(): void;
}

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

/**
 * Listens for SIGINT and SIGTERM. The first resolves `requested`; a second runs `beforeForce`
 * (last cleanup, which must be synchronous), then raises the same signal again with the
 * handlers removed, so that the process dies of it like any program that does not catch it
 * (exit status 128 + signal number in the shell).
 */
export function listenForStop(source: SignalSource, beforeForce: () => void): StopRequest {
  let received: NodeJS.Signals | undefined;
  let resolveRequested!: (signal: NodeJS.Signals) => void;
  const requested = new Promise<NodeJS.Signals>((resolve) => (resolveRequested = resolve));

  const dispose = () => {
    for (const signal of STOP_SIGNALS) source.removeListener(signal, onSignal);
  };
  function onSignal(signal: NodeJS.Signals): void {
    if (received === undefined) {
      received = signal;
      resolveRequested(signal);
      return;
    }
    dispose();
    beforeForce();
    source.kill(source.pid, signal);
  }
  for (const signal of STOP_SIGNALS) source.on(signal, onSignal);
  return {
    requested,
    get received() {
      return received;
    },
    dispose,
  };
}
