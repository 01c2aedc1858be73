import type { ConnectionWire } from './channel-guard.js';
import type { SshCommandEnvironment } from './lobby/run-line.js';

/** What the sessions of one authenticated SSH connection share. */
export interface SessionContext {
  env: SshCommandEnvironment;
  /** The key that authenticated the connection; each command re-checks it is still registered. */
  fingerprint: string;
  /** The key's account at connection time, for the REPL's greeting. */
  email: string;
  /** Aborted, with a `Cancellation('shutdown')` reason, when the front end closes. */
  shutdown: AbortSignal;
  /** Hands running work to the front end, so that closing can wait for it to settle. */
  track(work: Promise<unknown>): void;
  /** The connection's socket: its channels are held to it (see channel-guard). */
  wire: ConnectionWire;
}

/** A running session that the client can interrupt (Ctrl-C, or an SSH `signal` request). */
export interface Interruptible {
  /** Cancels the command running now, if any. */
  interrupt(): void;
}
