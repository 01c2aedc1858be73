import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { LogLevel, LogSink } from './config.js';
import { publicFailure } from '../errors.js';
import { logSafeMessage } from './rules/log-safe.js';

/** One finished request, as the log line reports it (SPEC §7). Never a token or signature. */
export interface RequestLogEntry {
  requestId: string;
  /** `http`, `ssh`, `proxy` or `reflection`. */
  via: string;
  /** `SHA256:...` of the caller's key, or `-` before authentication. */
  fingerprint: string;
  /** The resolved command path, or `-` when the request never got that far. */
  path: string;
  /** HTTP status, or for SSH the status the same outcome would have over HTTP. */
  status: number;
  durationMs: number;
  /** Only for failures the operator must see (500s): never shown to clients. */
  detail?: string;
  /**
   * A refused request's one-line message (a 4xx), as the client got it but with anything shaped
   * like a token or secret replaced (rules/log-safe.ts): the operator sees why.
   */
  message?: string;
  /**
   * Routine traffic (health checks, refused protocol upgrades) is logged at debug level only,
   * with the request's Host to tell its sender; a crash (a 5xx with a `detail`) is still an error.
   */
  routine?: { host: string };
  /** An SSH session into a VM (SPEC §6a): which VM, what it ran, how it ended (null: refused). */
  session?: { vm: string; kind: string; exit: number | string | null };
}

/** The longest Host a log line repeats: it is the sender's, not ours. */
const HOST_SHOWN = 200;

// A random prefix per process and a counter: unique across restarts, and free to make on the
// hot path (no call into the random source per request).
const processPrefix = randomBytes(4).toString('hex');
let requestCounter = 0;

/** A short unique id that ties a log line to a client-visible `X-Request-Id`. */
export function newRequestId(): string {
  requestCounter = (requestCounter + 1) % 0x100000000;
  return `${processPrefix}${requestCounter.toString(16).padStart(8, '0')}`;
}

/** Formats and writes one line per request: time, id, key, command path, status, duration. */
export function logRequest(log: LogSink, entry: RequestLogEntry, now?: Date): void {
  const detail = entry.detail === undefined ? '' : ` error=${JSON.stringify(entry.detail)}`;
  const message = entry.message === undefined ? '' : ` message=${JSON.stringify(entry.message)}`;
  const host =
    entry.routine === undefined
      ? ''
      : ` host=${JSON.stringify(entry.routine.host.slice(0, HOST_SHOWN))}`;
  const session =
    entry.session === undefined
      ? ''
      : ` vm=${JSON.stringify(entry.session.vm)} kind=${entry.session.kind} exit=${entry.session.exit ?? '-'}`;
  const at = now?.getTime() ?? Date.now();
  log(
    `${isoTime(at)} req=${entry.requestId} via=${entry.via} key=${entry.fingerprint} ` +
      `cmd=${JSON.stringify(entry.path)}${host}${session} status=${entry.status} ms=${entry.durationMs.toFixed(1)}${message}${detail}`,
    levelOf(entry),
    { entry, at },
  );
}

/** 5xx answers at error, other requests at info, routine ones at debug unless they crashed. */
function levelOf(entry: RequestLogEntry): LogLevel {
  const failed = entry.status >= 500 && (entry.routine === undefined || entry.detail !== undefined);
  if (failed) return 'error';
  return entry.routine === undefined ? 'info' : 'debug';
}

// Under load many lines share a millisecond; formatting the time once per millisecond (and
// making a Date only then) keeps the log line a small part of a request's cost.
let lastTime = { ms: NaN, iso: '' };
function isoTime(ms: number): string {
  if (ms !== lastTime.ms) lastTime = { ms, iso: new Date(ms).toISOString() };
  return lastTime.iso;
}

/** A fresh log entry for one request; the front end fills in what it learns. */
export function newLogEntry(via: string, path = '-'): RequestLogEntry {
  return { requestId: newRequestId(), via, fingerprint: '-', path, status: 0, durationMs: 0 };
}

/**
 * Runs one request's `work` (which resolves with the status it answered), turns a failure into
 * its answer with `refuse` (the HTTP error funnel, or its socket form), and writes the one log
 * line of SPEC §7 whatever happens; a refused request's line carries its message.
 */
export async function runLogged(
  log: LogSink,
  entry: RequestLogEntry,
  work: () => Promise<number>,
  refuse: (err: unknown) => { status: number; detail?: string },
): Promise<void> {
  const started = performance.now();
  try {
    entry.status = await work();
  } catch (err) {
    const outcome = refuse(err);
    entry.status = outcome.status;
    if (outcome.detail !== undefined) entry.detail = outcome.detail;
    if (outcome.status >= 400 && outcome.status < 500) {
      entry.message = logSafeMessage(publicFailure(err).error.message);
    }
  } finally {
    entry.durationMs = performance.now() - started;
    logRequest(log, entry);
  }
}
