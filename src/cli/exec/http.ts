// One HTTP request from the client (undici), with the failures of the network turned into the
// catalogue's `unreachable` (exit 8), and `POST /exec` (SPEC §2) on top of it: one command line
// with a bearer token, the answer as it came (with the `X-Exec-Exit` header or trailer of `ssh`
// output). Status codes are the caller's business (answer.ts).
import { Agent, request } from 'undici';
import { ExectlError } from '../../errors.js';
import { isVmOutput } from './answer.js';
import { execEndpoint } from './url.js';

/** A finished response. Header and trailer names are lower case. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  /** The body, unless it was handed to a stream sink as it arrived (then empty). */
  body: Buffer;
  /** Trailers (e.g. `x-exec-exit` after a streamed `ssh`), known once the body has ended. */
  trailers: Record<string, string>;
}

/** Receives a body chunk by chunk; the next chunk waits for a returned promise. */
export type ChunkSink = (chunk: Buffer) => void | Promise<void>;

/** The status line and headers, before the body arrives. */
export interface ResponseHead {
  status: number;
  headers: Record<string, string>;
}

interface HttpCallOptions {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Called once the head has arrived (e.g. to stop a spinner). */
  onHead?: (head: ResponseHead) => void;
  /**
   * Chooses, from the head, a sink that receives the body as it arrives instead of collecting
   * it. A sink returning a promise is waited for (backpressure).
   */
  streamTo?: (head: ResponseHead) => ChunkSink | undefined;
  /** The hint when the connection breaks after the request went out (did the command run?). */
  lostHint?: string;
  /** The hint when the server cannot be reached; by default, about `exectl serve` and --url. */
  unreachableHint?: string;
}

const UNREACHABLE_HINT = 'is `exectl serve` running? check --url / EXECTL_URL';

/** Network errors met before anything was sent, with the words the user sees. */
const CONNECT_FAILURES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
};

/** TLS failures: retrying cannot help, trusting the certificate can. */
const TLS_FAILURE =
  /^(CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|ERR_TLS_|ERR_SSL_)/;

/** `https://user:secret@host/` → `https://host/`: a password must never reach an error line. */
export function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, '$1');
}

/**
 * Sends one request to `url` on a connection of its own (closed before returning, so a retry
 * never reuses a broken socket and the process never waits on an idle one).
 *
 * @param shownUrl the address named in error messages (the user's `--url`, not the full path).
 * @throws ExectlError `unreachable` when the network fails: `cannot reach <url>: <why>` before
 *   the request was sent, `lost the connection to <url>` after.
 */
export async function callHttp(
  url: string,
  shownUrl: string,
  options: HttpCallOptions,
): Promise<HttpResponse> {
  const agent = new Agent();
  try {
    const response = await request(url, {
      dispatcher: agent,
      method: options.method,
      headers: options.headers,
      body: options.body,
      signal: options.signal,
    });
    const head: ResponseHead = {
      status: response.statusCode,
      headers: flattenHeaders(response.headers),
    };
    options.onHead?.(head);
    const sink = options.streamTo?.(head);
    const chunks: Buffer[] = [];
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      if (sink === undefined) chunks.push(chunk);
      else await sink(chunk);
    }
    return { ...head, body: Buffer.concat(chunks), trailers: flattenHeaders(response.trailers) };
  } catch (err) {
    throw networkError(err, withoutCredentials(shownUrl), options) ?? err;
  } finally {
    await agent.destroy();
  }
}

/** Failures of an established connection: the request may have reached the server. */
const LOST = /^(UND_ERR_SOCKET|ECONNRESET|EPIPE|UND_ERR_(HEADERS|BODY)_TIMEOUT)$/;

/** The user-facing error for a network failure, or undefined for anything else. */
function networkError(
  err: unknown,
  url: string,
  options: HttpCallOptions,
): ExectlError | undefined {
  if (options.signal?.aborted === true) return undefined;
  const notHttp = notHttpError(err, url, options);
  if (notHttp !== undefined) return notHttp;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  const why = CONNECT_FAILURES[code];
  if (why !== undefined) {
    return new ExectlError('unreachable', `cannot reach ${url}: ${why}`, {
      hint: options.unreachableHint ?? UNREACHABLE_HINT,
      cause: err,
    });
  }
  if (TLS_FAILURE.test(code)) {
    return new ExectlError(
      'unreachable',
      `cannot reach ${url}: its TLS certificate is not trusted (${code})`,
      { hint: "trust the server's certificate with NODE_EXTRA_CA_CERTS=<cert.pem>", cause: err },
    );
  }
  if (LOST.test(code)) {
    return new ExectlError('unreachable', `lost the connection to ${url}`, {
      hint: options.lostHint ?? options.unreachableHint ?? UNREACHABLE_HINT,
      cause: err,
    });
  }
  return undefined;
}

/** The address answers, but it is not an exectl HTTP listener: trying again cannot help. */
export class WrongServiceError extends ExectlError {}

/**
 * The server answered, but not in HTTP: an SSH listener (its banner starts `SSH-`), something
 * else, or plain HTTP where https:// was asked for. Each gets its own words (SPEC §8).
 */
function notHttpError(
  err: unknown,
  url: string,
  options: HttpCallOptions,
): ExectlError | undefined {
  const e = err as { name?: unknown; code?: unknown; data?: unknown } | undefined;
  const where = options.unreachableHint ?? 'check --url / EXECTL_URL';
  if (e?.name === 'HTTPParserError') {
    const ssh = typeof e.data === 'string' && e.data.startsWith('SSH-');
    return new WrongServiceError(
      'unreachable',
      ssh
        ? `cannot reach ${url}: that is an SSH port, not exectl's HTTP listener`
        : `cannot reach ${url}: it does not answer in HTTP`,
      {
        hint: `give the HTTP address \`exectl serve\` prints (default http://127.0.0.1:7070); ${where}`,
        cause: err,
      },
    );
  }
  if (e?.code === 'ERR_SSL_WRONG_VERSION_NUMBER' || e?.code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG') {
    return new WrongServiceError(
      'unreachable',
      `cannot reach ${url}: it speaks plain HTTP, not HTTPS`,
      {
        hint: `use http:// instead of https:// (or start exectl serve with --tls-cert/--tls-key); ${where}`,
        cause: err,
      },
    );
  }
  return undefined;
}

function flattenHeaders(
  headers: Record<string, string | string[] | undefined> | null | undefined,
): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined)
      flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

export type ExecResponse = HttpResponse;

export interface ExecOptions {
  signal?: AbortSignal;
  /**
   * Receives the output of `ssh <vm> <command>` chunk by chunk as it arrives. Every other body
   * (JSON results and errors, or whatever a server that is not exectl says) is collected into
   * `body` instead.
   */
  onChunk?: ChunkSink;
  /** Called when the status and headers have arrived. */
  onHead?: (head: ResponseHead) => void;
  /** The hint shown if the connection breaks after the command was sent. */
  lostHint?: string;
  /** Where the URL came from, in words (`--url`, `url of profile "p" in <file>`). */
  urlFrom?: string;
}

/**
 * Posts `line` to the service at `url` with `token` and resolves with the whole answer, whatever
 * its status. The output of a VM command ({@link isVmOutput}) goes to `options.onChunk` as it
 * arrives when given.
 *
 * @throws ExectlError `usage` for a bad `url`; `unreachable` when the network fails.
 */
export async function postExec(
  url: string,
  token: string,
  line: string,
  options: ExecOptions = {},
): Promise<ExecResponse> {
  const { onChunk, signal, onHead, lostHint, urlFrom = '--url' } = options;
  return callHttp(execEndpoint(url, urlFrom), url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'text/plain; charset=utf-8',
      // We read trailers: a VM command's output streams from its first byte (SPEC §8 ssh).
      TE: 'trailers',
    },
    body: line,
    signal,
    onHead,
    lostHint,
    unreachableHint: urlFrom.startsWith('url of profile')
      ? `is \`exectl serve\` running? check the ${urlFrom}`
      : undefined,
    streamTo: (head) => (onChunk !== undefined && isVmOutput(head) ? onChunk : undefined),
  });
}
