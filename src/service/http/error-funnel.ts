import type { ServerResponse } from 'node:http';
import { publicFailure } from '../../errors.js';

/** What the funnel reports to the request log: the status sent and, for 500s, the cause. */
export interface FunnelOutcome {
  status: number;
  detail?: string;
}

/**
 * The single place where a failure becomes an HTTP status. What is shown is
 * {@link publicFailure}'s decision: an ExectlError answers with its catalogue status, its own
 * headers and `{"error": message}` (or its explicit body); anything else is a bug: 500
 * `internal error`, with the cause returned for the log only. `headers` go on every answer
 * (the request id).
 */
export function sendError(
  res: ServerResponse,
  err: unknown,
  headers: Record<string, string> = {},
): FunnelOutcome {
  const { error, detail } = publicFailure(err);
  const body = error.body === undefined ? { error: error.message } : error.body;
  writeJson(res, error.status, body, Object.assign({}, headers, error.headers));
  return detail === undefined ? { status: error.status } : { status: error.status, detail };
}

/** Writes a JSON body followed by a newline, as every /exec answer is. */
export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string>,
): void {
  if (res.headersSent) {
    // Too late for a status. A streamed answer that failed midway already ended with its
    // trailer; any other answer is cut, so the client sees it truncated, not silently short.
    if (!res.writableEnded) res.destroy();
    return;
  }
  const text = JSON.stringify(body) + '\n';
  // Object.assign rather than `{ ...headers, 'Content-Type': … }`: on Node 20 a spread followed
  // by more properties takes V8's slow path, about 750 ns on every answer (measured).
  const head = Object.assign({}, headers, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  res.writeHead(status, head);
  res.end(text);
}
