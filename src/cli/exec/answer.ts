// What an `/exec` answer is (JSON, or the raw output of a VM command with its exit code), and a
// failed one as the one ExectlError the user sees: the catalogue code that matches the status
// (so main.ts exits with SPEC §8's code), the server's message, and what to do next.
import { parseSuggestions, SUGGESTIONS_HEADER } from '../../did-you-mean.js';
import {
  codeForStatus,
  ExectlError,
  FAILURE_KIND_HEADER,
  parseFailureKind,
  type ErrorCode,
} from '../../errors.js';
import type { ExecResponse, ResponseHead } from './http.js';

/**
 * The catalogue code (so SPEC §8's exit code) of an error status received: the service's own
 * code for it, except that every 5xx but a timeout is a `server_error` (exit 9, "see the
 * server's log"), and a 4xx no exectl server sends is a `bad_request`.
 */
export function clientCodeForStatus(status: number): ErrorCode {
  if (status >= 500 && status !== 504) return 'server_error';
  return codeForStatus(status) ?? 'bad_request';
}

/** What the client knew about the request, for the hints. */
import { unauthorizedHint } from './token-hint.js';

interface RequestFacts {
  /** The service's address as the user gave it. */
  url: string;
  /** The cmds entry that allows the command (`ssh-key list`, `ssh web`), when known. */
  scope: string | undefined;
  /** Which key signed the token and where it came from (see exec/token.ts), for 401s. */
  signedBy?: string;
  /** The token sent as configured (not minted), and this server's namespace: for 401 hints. */
  configuredToken?: string | undefined;
  namespace?: string;
}

/**
 * The error for an answer that is not a success: an error status, or an answer that no exectl
 * server would give (then `unreachable` for a 1xx-3xx status: no exectl server answered).
 */
export function responseError(response: ExecResponse, facts: RequestFacts): ExectlError {
  const failure = response.status >= 400 ? describeFailure(response) : undefined;
  if (failure === undefined) {
    const code = response.status >= 400 ? clientCodeForStatus(response.status) : 'unreachable';
    return new ExectlError(code, `${facts.url} answered ${response.status}, not as exectl does`, {
      hint: 'check that --url points at an exectl server',
    });
  }
  if (response.status === 404) return unknownCommand(response, failure.message);
  // SPEC §8: every 401 names the key that signed and where it came from.
  const message =
    response.status === 401 && facts.signedBy !== undefined
      ? `${failure.message} (${facts.signedBy})`
      : failure.message;
  return new ExectlError(clientCodeForStatus(response.status), message, {
    hint: hintFor(response, failure, facts),
  });
}

/**
 * A 404: the server's suggestion (`X-Exec-Suggest: ls`) becomes the hint, worded as the command
 * to type here; without one, where the list of commands is.
 */
function unknownCommand(response: ExecResponse, message: string): ExectlError {
  const suggestions = parseSuggestions(response.headers[SUGGESTIONS_HEADER.toLowerCase()]);
  const hint =
    suggestions.length === 0
      ? 'run `exectl run help` to list the commands'
      : `did you mean ${suggestions.map((s) => `\`exectl run ${s}\``).join(' or ')}?`;
  return new ExectlError('unknown_command', message, { hint });
}

/**
 * Seconds to wait before trying again after a 429, from `Retry-After` (whole seconds, SPEC §2);
 * 1 when the header is missing or is not a number of seconds.
 */
export function retryAfterSeconds(response: ExecResponse): number {
  const text = response.headers['retry-after']?.trim() ?? '';
  return /^\d{1,6}$/.test(text) ? Number(text) : 1;
}

/**
 * What a failed answer says: an `error` (`{"error": ...}`), a `result` (a JSON result in place
 * of an error, as `rm`'s 422), or `raw` output of a VM command with its exit code; undefined
 * when it is none of these (not an exectl server).
 */
interface Failure {
  kind: 'error' | 'result' | 'raw';
  message: string;
}

/** Which kind of failed answer `response` is (see {@link Failure}); undefined for none. */
export function failureKind(response: ExecResponse): Failure['kind'] | undefined {
  return describeFailure(response)?.kind;
}

function describeFailure(response: ExecResponse): Failure | undefined {
  if (isVmOutput(response)) {
    const exit = execExitCode(response);
    return exit === undefined
      ? undefined
      : { kind: 'raw', message: `the command exited with ${exit}` };
  }
  if (!isJson(response)) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error === 'string') return { kind: 'error', message: error };
  if (response.status !== 422) return undefined;
  return { kind: 'result', message: partialFailure(body) ?? 'the command failed' };
}

/**
 * The first failure listed in a partial result such as `rm`'s
 * `{"deleted":[...],"failed":[{"vm_name","error"}]}`, with how many more there are.
 */
function partialFailure(body: object): string | undefined {
  const failed = (body as { failed?: unknown }).failed;
  if (!Array.isArray(failed)) return undefined;
  const first = failed[0] as { error?: unknown } | undefined;
  if (typeof first?.error !== 'string') return undefined;
  return failed.length === 1 ? first.error : `${first.error} (and ${failed.length - 1} more)`;
}

/**
 * Where a command runs past the 30 s limit (SPEC §4, §6a): a session of its own over the VM's
 * SSH server has none. `exectl ssh` replaces it with the exact `ssh` line when it can.
 */
export const NO_LIMIT_HINT =
  "a session over the VM's own SSH server has no limit (ssh to ssh_dest of `exectl run ls`), " +
  'or run long jobs in the background (nohup, setsid)';

function hintFor(response: ExecResponse, failure: Failure, facts: RequestFacts): string {
  const { status } = response;
  switch (status) {
    case 400:
      return 'check the command line: quotes must be balanced (see exectl-run(1))';
    case 401:
      return unauthorizedHint({ ...facts, message: failure.message });
    case 403: {
      const path =
        /^command not allowed: (.+)$/.exec(failure.message)?.[1] ?? facts.scope ?? 'the command';
      return `the token's cmds do not include "${path}": mint one with --cmds "${path}"`;
    }
    case 405:
      return 'check that --url points at an exectl server';
    case 413:
      return 'a command line is at most 65536 bytes';
    case 422:
      return failedHint(response, failure, facts);
    case 429:
      return `retry after ${retryAfterSeconds(response)}s`;
    case 504:
      return `commands stop after 30 s: ${NO_LIMIT_HINT}`;
    default: {
      const id = response.headers['x-request-id'];
      return id === undefined ? 'check the server log' : `check the server log for request ${id}`;
    }
  }
}

/**
 * What to do after a 422: for something not found, the command that lists what there is; for a
 * change only the owner may make, whom to ask (both told by the server's `X-Exec-Failure`);
 * for anything else (bad flags, missing arguments), the command's help.
 */
function failedHint(response: ExecResponse, failure: Failure, facts: RequestFacts): string {
  if (failure.kind === 'raw') return 'its output is above; `exectl ssh` exits with its exit code';
  if (failure.kind === 'result') return 'its result is on stdout';
  const kind = parseFailureKind(response.headers[FAILURE_KIND_HEADER.toLowerCase()]);
  if (kind?.kind === 'not-found') return `run \`exectl run ${kind.listedBy}\` to see yours`;
  if (kind?.kind === 'not-owner') {
    return kind.owner === undefined ? 'ask its owner' : `ask its owner, ${kind.owner}`;
  }
  // The one 422 a person can fix with a single command: the VM only needs resuming.
  const paused = /^vm "([a-z][a-z0-9-]{0,62})" is paused$/.exec(failure.message)?.[1];
  if (paused !== undefined) return `resume it with \`exectl run resume ${paused}\``;
  const path = facts.scope?.split(' ')[0] === 'ssh' ? 'ssh' : facts.scope;
  return path === undefined ? 'see `exectl run help`' : `see \`exectl run help ${path}\``;
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

/**
 * Why a VM command ended early, from the `X-Exec-Error` the server adds when it cut the command
 * off (a trailer, and a header too when the output was held back); undefined when it ran to its
 * end. A timeout is the catalogue's `timeout` (exit 7), anything else `unavailable`. A 504
 * comes only before any output arrived, and says so in its hint.
 */
export function streamCutOff(response: ExecResponse): ExectlError | undefined {
  const why = response.trailers['x-exec-error'] ?? response.headers['x-exec-error'];
  if (why === undefined) return undefined;
  if (/timed out/.test(why)) {
    return new ExectlError('timeout', why, {
      hint:
        response.status === 504
          ? `commands stop after 30 s: ${NO_LIMIT_HINT}`
          : `its output so far is above; ${NO_LIMIT_HINT}`,
    });
  }
  return new ExectlError('unavailable', `the server cut the command off: ${why}`, {
    hint: 'its output so far is above; check the server',
  });
}
