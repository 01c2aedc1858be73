import { randomBytes } from 'node:crypto';
import type { LogSink } from './config.js';

/** One finished request, as the log line reports it (SPEC §7). Never a token or signature. */
export interface RequestLogEntry {
  requestId: string;
  /** `http`, `ssh` or `proxy`. */
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
}

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
export function logRequest(log: LogSink, entry: RequestLogEntry, now: Date = new Date()): void {
  const fields = [
    now.toISOString(),
    `req=${entry.requestId}`,
    `via=${entry.via}`,
    `key=${entry.fingerprint}`,
    `cmd=${JSON.stringify(entry.path)}`,
    `status=${entry.status}`,
    `ms=${entry.durationMs.toFixed(1)}`,
  ];
  log(
    fields.join(' ') + (entry.detail === undefined ? '' : ` error=${JSON.stringify(entry.detail)}`),
  );
}
