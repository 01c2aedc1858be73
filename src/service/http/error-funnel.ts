import { STATUS_CODES, type ServerResponse } from 'node:http';
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

/**
 * The funnel's answer for the VM proxy's raw connections (proxy-connection.ts): the same status,
 * headers and body as {@link sendError} writes, as the bytes of one HTTP/1.1 answer, which says
 * whether the connection stays open after it.
 */
export function errorAnswerBytes(
  err: unknown,
  headers: Record<string, string>,
  keepAlive: boolean,
): { bytes: string; outcome: FunnelOutcome } {
  const { error, detail } = publicFailure(err);
  const body = JSON.stringify(error.body === undefined ? { error: error.message } : error.body);
  const text = Buffer.from(`${body}\n`, 'utf8').toString('latin1');
  let head = `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\n`;
  for (const [name, value] of Object.entries(Object.assign({}, headers, error.headers))) {
    head += `${name}: ${value}\r\n`;
  }
  head +=
    `Content-Type: application/json\r\nContent-Length: ${text.length}\r\n` +
    `Date: ${new Date().toUTCString()}\r\n${connectionHeader(keepAlive)}\r\n`;
  const outcome =
    detail === undefined ? { status: error.status } : { status: error.status, detail };
  return { bytes: head + text, outcome };
}

/** The `Connection` header(s) node:http writes on a keep-alive or closing answer. */
export function connectionHeader(keepAlive: boolean): string {
  return keepAlive
    ? `Connection: keep-alive\r\nKeep-Alive: timeout=5\r\n`
    : 'Connection: close\r\n';
}

/**
 * node:http's own answer to bytes that are not HTTP/1.1 it accepts, to heads past the size
 * limit, to a head that took too long and to an `Expect` it does not know, sent before the
 * connection is closed: the proxy's raw connections answer them the same.
 */
export function refusalBytes(status: 400 | 408 | 417 | 431): string {
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`;
}
