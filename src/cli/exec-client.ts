// The client of `POST /exec` (SPEC §2): sends one command line with a bearer token and gives
// back the answer as it came, including the `X-Exec-Exit` header or trailer of `ssh` output.
// Turning a failed answer into an error is exec-errors.ts's job.
import { ExectlError } from '../errors.js';
import { callHttp, type ChunkSink, type HttpResponse, type ResponseHead } from './http-call.js';

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
}

/**
 * The `/exec` endpoint of the service at `url` (`--url`, e.g. `http://127.0.0.1:7070` or
 * `https://exec.example.com/base/`).
 *
 * @throws ExectlError `usage` when `url` is not an http(s) URL.
 */
export function execEndpoint(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    parsed = new URL('invalid:');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ExectlError('usage', `--url "${url}" is not an http:// or https:// URL`, {
      hint: 'e.g. --url http://127.0.0.1:7070 (or set EXECTL_URL)',
    });
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}/exec`;
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
  const { onChunk, signal, onHead, lostHint } = options;
  return callHttp(execEndpoint(url), url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'text/plain; charset=utf-8',
    },
    body: line,
    signal,
    onHead,
    lostHint,
    streamTo: (head) => (onChunk !== undefined && isVmOutput(head) ? onChunk : undefined),
  });
}

/** Whether an answer's body is JSON (every exectl answer but the output of `ssh`). */
export function isJson(head: ResponseHead): boolean {
  return /^application\/json\b/i.test(head.headers['content-type'] ?? '');
}

/**
 * Whether an answer is the raw output of a VM command (SPEC §2): it carries `X-Exec-Exit` as a
 * header, or announces it as a trailer.
 */
export function isVmOutput(head: ResponseHead): boolean {
  return (
    head.headers['x-exec-exit'] !== undefined ||
    /(^|,)\s*x-exec-exit\s*(,|$)/i.test(head.headers.trailer ?? '')
  );
}

/**
 * The exit code of a VM command, from `X-Exec-Exit` in the headers (output up to 1 MiB) or the
 * trailers (streamed output), or undefined when the answer carries none.
 */
export function execExitCode(response: ExecResponse): number | undefined {
  const text = response.headers['x-exec-exit'] ?? response.trailers['x-exec-exit'];
  if (text === undefined || !/^\d{1,3}$/.test(text.trim())) return undefined;
  const code = Number(text.trim());
  return code <= 255 ? code : undefined;
}
