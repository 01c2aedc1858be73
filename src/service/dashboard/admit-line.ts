// The dashboard's one call into the command path: a command line, for a signed-in caller,
// admitted exactly as `/exec` and the SSH front end admit theirs (the key's rate-limit
// bucket, the line's own checks), then the dispatcher. Kept to this file so that it can
// follow the admission steps wherever they live (dispatch/admit.ts, issue 29).
import { ExectlError } from '../../errors.js';
import { DEFAULTS } from '../config.js';
import type { ServiceDeps } from '../deps.js';
import { dispatch, type DispatchResult } from '../dispatch/dispatcher.js';
import type { CommandRegistry } from '../dispatch/registry.js';
import type { StopSubscription } from '../dispatch/stop.js';
import type { Principal } from '../dispatch/types.js';
import type { RequestLogEntry } from '../request-log.js';
import { takeOrRefuse, type RateLimiter } from '../rules/rate-limit.js';

/** What admitting a line needs besides the line: shared by every dashboard request. */
export interface AdmitEnvironment {
  deps: ServiceDeps;
  registry: CommandRegistry<ServiceDeps>;
  /** The same instance as /exec's and SSH's, so a key has one bucket; null: unlimited. */
  rateLimiter: RateLimiter | null;
}

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
  entry.fingerprint = principal.keyFingerprint;
  env.deps.store.recordKeyUse(principal.keyFingerprint);
  takeOrRefuse(env.rateLimiter, principal.keyFingerprint);
  if (Buffer.byteLength(line) > DEFAULTS.bodyLimit) {
    throw new ExectlError('body_too_large', `request body exceeds ${DEFAULTS.bodyLimit} bytes`);
  }
  if (line.includes('\0')) {
    throw new ExectlError('bad_request', 'request body contains a NUL byte');
  }
  if (line.trim() === '') {
    throw new ExectlError('bad_request', 'missing command', {
      hint: 'send a command line such as "help"',
    });
  }
  return dispatch(env.registry, line, principal, env.deps, {
    deadlineMs: env.deps.config.commandDeadlineMs,
    requestId: entry.requestId,
    stopWhen,
    onResolved: (path) => (entry.path = path),
    faults: env.deps.config.faults,
  });
}
