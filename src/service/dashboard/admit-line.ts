// The dashboard's one call into the command path: a command line, for a signed-in caller,
// admitted by the same steps as `/exec` and the SSH front end (dispatch/admit.ts: the key's
// rate-limit bucket, the line's own checks, then the dispatcher).
import { admit, type CommandEnvironment } from '../dispatch/admit.js';
import type { DispatchResult } from '../dispatch/dispatcher.js';
import type { StopSubscription } from '../dispatch/stop.js';
import type { Principal } from '../dispatch/types.js';
import type { RequestLogEntry } from '../request-log.js';

/** What admitting a line needs besides the line: shared by every dashboard request. */
export type AdmitEnvironment = CommandEnvironment;

/**
 * Runs `line` for `principal` as /exec would: rate limit (429), body checks (413, 400), then
 * the dispatcher's order. Fills `entry` (key, command path) for the one log line.
 */
export function admitLine(
  env: AdmitEnvironment,
  principal: Principal,
  line: string,
  entry: RequestLogEntry,
  stopWhen: StopSubscription,
): Promise<DispatchResult> {
  // A session's key counts as used, as a token's does at verification (`ssh-key list`).
  env.deps.store.recordKeyUse(principal.keyFingerprint);
  return admit(env, { principal, line, noun: 'request body', entry, stopWhen });
}
