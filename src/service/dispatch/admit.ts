// The steps every front end (HTTP's /exec, SSH, the dashboard) runs between "who is calling"
// and the dispatcher, written once so that the doors cannot drift apart: the caller's
// rate-limit bucket, the command line's own checks of SPEC §2, the dispatch under the
// service's deadline and injected faults, and what the request's log line learns on the way.
import { ExectlError } from '../../errors.js';
import { DEFAULTS } from '../config.js';
import type { ServiceDeps } from '../deps.js';
import type { RequestLogEntry } from '../request-log.js';
import { takeOrRefuse, type RateLimiter } from '../rules/rate-limit.js';
import { dispatch, type DispatchResult } from './dispatcher.js';
import type { CommandRegistry } from './registry.js';
import type { StopSubscription } from './stop.js';
import type { Principal, ReadInput } from './types.js';

/** What every front end shares to run commands: built once by the service, never per request. */
export interface CommandEnvironment {
  deps: ServiceDeps;
  registry: CommandRegistry<ServiceDeps>;
  /** One instance for every front end, so a key has one bucket; null: unlimited. */
  rateLimiter: RateLimiter | null;
}

/** One command to admit, from a caller the front end has already identified. */
export interface AdmissionRequest {
  /**
   * Who is calling: from a verified token (HTTP), a registered SSH key (`ssh/principal.ts`),
   * or the dashboard's session. Its `keyFingerprint` names the rate-limit bucket.
   */
  principal: Principal;
  /**
   * The command line, or how to read it once the rate limit has passed (HTTP reads its body
   * only then, and refuses an oversized one itself while reading: SPEC §2's order).
   */
  line: string | Buffer | (() => Promise<Buffer>);
  /** How the front end's messages name what it received: `request body`, `command line`. */
  noun: string;
  /** The request's log line: its key and, once resolved, its command path are filled in. */
  entry: RequestLogEntry;
  /** The front end's reasons to stop the command early (client gone, server stopping). */
  stopWhen?: StopSubscription;
  /** The client's standard input, for a command that reads a value from it (SSH exec only). */
  readInput?: ReadInput;
}

/**
 * Admits one command line and runs it, in SPEC §2's order after authentication: the caller's
 * rate-limit bucket (429), the line's size (413), a NUL byte or nothing to run (400), then the
 * dispatcher (syntax, unknown command, permission, arguments, the service's deadline and any
 * injected fault). Throws the first failure as an ExectlError for the front end to show (its
 * error funnel, or `error: ...` over SSH); fills `request.entry`'s key and path on the way, so
 * the front end's one log line (`runLogged`) says who asked for what.
 *
 * @example
 * // A front end that knows its caller (the dashboard, with a session's principal):
 * const entry = newLogEntry('dashboard');
 * await runLogged(log, entry, async () => {
 *   const result = await admit(env, { principal, line: 'ls', noun: 'command line', entry });
 *   if (result.output.kind !== 'json') throw new ExectlError('bad_request', 'not here');
 *   send(result.output.data);
 *   return 200;
 * }, refuse);
 */
export async function admit(
  env: CommandEnvironment,
  request: AdmissionRequest,
): Promise<DispatchResult> {
  const { principal, entry } = request;
  entry.fingerprint = principal.keyFingerprint;
  takeOrRefuse(env.rateLimiter, principal.keyFingerprint);
  const raw = typeof request.line === 'function' ? await request.line() : request.line;
  const line = checkedLine(raw, request.noun);
  return dispatch(env.registry, line, principal, env.deps, {
    deadlineMs: env.deps.config.commandDeadlineMs,
    requestId: entry.requestId,
    stopWhen: request.stopWhen,
    onResolved: (path) => (entry.path = path),
    faults: env.deps.config.faults,
    readInput: request.readInput,
  });
}

/** SPEC §2's checks of the line itself: at most 65536 bytes, no NUL byte, not blank. */
function checkedLine(raw: string | Buffer, noun: string): string {
  const size = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
  if (size > DEFAULTS.bodyLimit) {
    throw new ExectlError('body_too_large', `${noun} exceeds ${DEFAULTS.bodyLimit} bytes`, {
      hint: 'send a shorter command line',
    });
  }
  const hasNul = typeof raw === 'string' ? raw.includes('\0') : raw.includes(0);
  if (hasNul) {
    throw new ExectlError('bad_request', `${noun} contains a NUL byte`, {
      hint: 'send the command line as plain text',
    });
  }
  const line = typeof raw === 'string' ? raw : raw.toString('utf8');
  if (line.trim() === '') {
    throw new ExectlError('bad_request', 'missing command', {
      hint: 'send a command line such as "help"',
    });
  }
  return line;
}
