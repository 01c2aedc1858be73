// HTTP/1.1 framing for the VM proxy, by Node's own llhttp: the parser node:http runs, with the
// same strictness (no lenient flags) and the same header-size limit, so that the proxy accepts
// exactly what node:http accepts (the property test in test/integration/proxy compares them).
// Only the wrapping is here: llhttp hands headers over in pieces, and this puts them together
// as node:http's own callbacks do.
import { HTTPParser, methods } from 'node:_http_common';

/** A request or response head, as llhttp read it. Header names and values are latin1 strings. */
export interface ParsedHead {
  versionMajor: number;
  versionMinor: number;
  /** [name, value, name, value...] as they came. */
  rawHeaders: string[];
  /** Requests only. */
  method: string;
  url: string;
  /** Responses only. */
  statusCode: number;
  statusMessage: string;
  /** A request asking for a protocol upgrade (or CONNECT), or a 101 answer. */
  upgrade: boolean;
  /** What the message's version and `Connection` say of the connection after it. */
  keepAlive: boolean;
}

/** What a parser reports, message by message. */
export interface ParserEvents {
  /**
   * A head is complete. Returns what llhttp expects: 0 to read a body as framed, 1 when the
   * message has none whatever its head says (a response to HEAD, a 1xx), 2 for a 101 after
   * which the bytes are no longer HTTP.
   */
  head(head: ParsedHead): 0 | 1 | 2;
  /** A piece of the body, de-chunked (a copy: it may be kept). */
  body(chunk: Buffer): void;
  /** The message ended; `trailers` are those of a chunked body ([] when none). */
  complete(trailers: string[]): void;
}

/** A parse failure: llhttp's code (`HPE_*`) and the bytes it had accepted before it. */
export type ParseFailure = Error & { code: string; bytesParsed: number };

/** One connection's parser. */
export interface HttpParser {
  /** Parses `data`; returns the bytes consumed (fewer than given after an upgrade) or the failure. */
  execute(data: Buffer): number | ParseFailure;
  /** The peer closed: ends a message delimited by the close, or fails one cut short. */
  finish(): ParseFailure | undefined;
  /** Frees the native parser; no call after this one. */
  free(): void;
}

/**
 * At most this many header lines (node:http keeps the first 1000 and drops the rest silently;
 * the proxy refuses the request instead, so that no header is lost on the way to the VM).
 */
export const MAX_HEADER_PAIRS = 1000;

/** A parser of requests (a client's connection) or responses (a VM server's). */
export function createParser(kind: 'request' | 'response', events: ParserEvents): HttpParser {
  const parser = new HTTPParser();
  // 0: node:http's own limit (--max-http-header-size, 16 KiB by default).
  parser.initialize(
    kind === 'request' ? HTTPParser.REQUEST : HTTPParser.RESPONSE,
    {},
    0,
    HTTPParser.kLenientNone,
  );
  // Heads too long for one read arrive in pieces, and so do trailers.
  let pending: string[] = [];
  let pendingUrl = '';
  parser[HTTPParser.kOnHeaders] = (headers: string[], url: string) => {
    if (pending.length <= MAX_HEADER_PAIRS * 2) pending.push(...headers);
    pendingUrl += url;
  };
  parser[HTTPParser.kOnHeadersComplete] = (
    versionMajor: number,
    versionMinor: number,
    headers: string[] | undefined,
    method: number | undefined,
    url: string | undefined,
    statusCode: number | undefined,
    statusMessage: string | undefined,
    upgrade: boolean,
    keepAlive: boolean,
  ) => {
    const rawHeaders = headers ?? pending;
    const target = url || pendingUrl;
    pending = [];
    pendingUrl = '';
    return events.head({
      versionMajor,
      versionMinor,
      rawHeaders,
      method: method === undefined ? '' : (methods[method] ?? ''),
      url: target,
      statusCode: statusCode ?? 0,
      statusMessage: statusMessage ?? '',
      upgrade,
      keepAlive,
    });
  };
  parser[HTTPParser.kOnBody] = (chunk: Buffer) => events.body(chunk);
  parser[HTTPParser.kOnMessageComplete] = () => {
    const trailers = pending;
    pending = [];
    pendingUrl = '';
    events.complete(trailers);
  };
  // node:http's kOnExecute hook (used with `consume`) is never called here: reads come from JS.
  parser[HTTPParser.kOnExecute] = () => {};
  return {
    execute: (data) => parser.execute(data),
    finish: () => parser.finish(),
    free: () => {
      parser.remove();
      parser.free();
    },
  };
}

/** Node's view of a raw header list: names lower-cased, repeats joined as node:http joins them. */
export function headerMap(rawHeaders: readonly string[]): Record<string, string | string[]> {
  // No prototype: a header called `__proto__` is a header like any other.
  const map: Record<string, string | string[]> = Object.create(null) as Record<string, string>;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    const seen = map[name];
    if (seen === undefined) map[name] = name === 'set-cookie' ? [value] : value;
    else if (name === 'set-cookie') (seen as string[]).push(value);
    else if (FIRST_WINS.has(name)) continue;
    else map[name] = `${seen as string}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  return map;
}

/** Headers node:http keeps the first of when repeated (IncomingMessage's matchKnownFields). */
const FIRST_WINS = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);
