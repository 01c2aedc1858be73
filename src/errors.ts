/**
 * The one catalogue of error codes. Every failure that reaches a user is an {@link ExectlError}
 * carrying one of these codes; the code alone decides the HTTP status (in the service's error
 * funnel) and the process exit code (in `cli/main.ts`). The client turns a status it receives
 * back into one of these codes (`cli/exec/answer.ts`), so the exit code still comes from here.
 */
export const ERROR_CATALOGUE = {
  /** Wrong HTTP method on /exec. */
  method_not_allowed: { status: 405, exit: 2 },
  /** Missing/invalid Authorization header, or a token that fails §1.5. */
  unauthorized: { status: 401, exit: 3, help: 'authentication ({status})' },
  /** The key's rate-limit bucket is empty. */
  rate_limited: { status: 429, exit: 6, help: 'rate limited ({status})' },
  /** Request body over the 65536-byte limit. */
  body_too_large: { status: 413, exit: 2 },
  /** Empty body, NUL byte, or a command line that does not lex. */
  bad_request: { status: 400, exit: 2, help: 'usage or bad request ({status})' },
  /** The first word(s) name no command. */
  unknown_command: { status: 404, exit: 5, help: 'unknown command ({status})' },
  /**
   * A URL names nothing: on the reflection listener, an unknown VM secret, reflection path or
   * integration. Listed after `unknown_command`, which stays the code a received 404 maps to.
   */
  not_found: { status: 404, exit: 5 },
  /** The command path is not in the token's cmds. */
  forbidden: { status: 403, exit: 4, help: 'not allowed ({status})' },
  /** A command ran past its deadline. */
  timeout: { status: 504, exit: 7, help: 'timed out ({status})' },
  /** A command ran and failed: bad arguments, not found, invalid input. */
  command_failed: { status: 422, exit: 1, help: 'command failed ({status})' },
  /** The VM proxy could not reach the VM's server. */
  bad_gateway: { status: 502, exit: 9 },
  /** A request came back to the server through one of its own integrations (SPEC §6). */
  integration_loop: { status: 508, exit: 9 },
  /** The server is shutting down and cut the command off. */
  unavailable: { status: 503, exit: 9 },
  /**
   * The data folder's file system is full: the database (SQLITE_FULL) or a file of the server
   * could not be written. The floor of SPEC §7 should keep this from happening.
   */
  disk_full: { status: 507, exit: 9 },
  /** Anything unexpected. The message shown is always just "internal error". */
  internal: { status: 500, exit: 9 },
  /**
   * The server cannot start as configured: an address in use, bwrap unusable, a bad seed file,
   * a database newer than this exectl, corrupt or unreadable, a data folder another server
   * holds (which also refuses the offline `serve` commands). `exectl serve` shows it; never an
   * HTTP answer.
   */
  cannot_start: { status: 500, exit: 2 },
  /** Client side: wrong flags or arguments given to exectl itself. */
  usage: { status: 400, exit: 2 },
  /** Client side: a key could not be loaded or could not sign. */
  key_error: { status: 400, exit: 2 },
  /** Client side: the server could not be reached at all. */
  unreachable: { status: 502, exit: 8, help: 'server unreachable' },
  /**
   * Client side: the server answered 5xx (504 aside). Its own code, because the CLI shows the
   * server's message and a hint about the server's log, where `internal` means a client bug.
   */
  server_error: { status: 502, exit: 9, help: 'server error (5xx)' },
  /** Client side: `inspect` on a token that is well-formed but not valid now (expired...). */
  token_invalid: { status: 401, exit: 1 },
  /** Client side: `inspect` on a token that cannot be decoded. */
  token_malformed: { status: 401, exit: 2 },
} as const satisfies Record<string, CatalogueEntry>;

/**
 * A code's HTTP status and exit code; `help`, on the one code that names an exit code in the
 * CLI's help, says what that exit code means (`{status}` stands for the status).
 */
interface CatalogueEntry {
  status: number;
  exit: number;
  help?: string;
}

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The codes the service answers with, one per status (a received 404 is `unknown_command`). */
const SERVICE_CODES: readonly ErrorCode[] = [
  'bad_request',
  'unauthorized',
  'forbidden',
  'unknown_command',
  'method_not_allowed',
  'body_too_large',
  'command_failed',
  'rate_limited',
  'internal',
  'bad_gateway',
  'unavailable',
  'timeout',
  'integration_loop',
];
const SERVICE_CODE_FOR_STATUS = new Map<number, ErrorCode>(
  SERVICE_CODES.map((code) => [ERROR_CATALOGUE[code].status, code]),
);

/** Every status the service answers a failure with, in increasing order. */
export const SERVICE_STATUSES: readonly number[] = [...SERVICE_CODE_FOR_STATUS.keys()].sort(
  (a, b) => a - b,
);

/**
 * The catalogue code the service answers `status` with (`503` → `unavailable`, `404` →
 * `unknown_command`), or undefined for a status it never sends. The one map from a status back
 * to a code: the library's client names failures by it, injected faults are checked against
 * it, and the CLI folds it into its own codes (`cli/exec/answer.ts`).
 */
export function codeForStatus(status: number): ErrorCode | undefined {
  return SERVICE_CODE_FOR_STATUS.get(status);
}

/**
 * What each exit code of `run` and `ssh` means, in exit code order, from the catalogue: e.g.
 * `6 rate limited (429)`. The CLI's help lists these, so it never drifts from the codes.
 */
export function exitCodeMeanings(): string[] {
  return Object.values(ERROR_CATALOGUE as Record<string, CatalogueEntry>)
    .flatMap(({ status, exit, help }) =>
      help === undefined ? [] : [{ exit, text: help.replace('{status}', String(status)) }],
    )
    .sort((a, b) => a.exit - b.exit)
    .map(({ exit, text }) => `${exit} ${text}`);
}

interface ExectlErrorOptions {
  /** One short clause telling the user what to do next (shown by the CLI after " — "). */
  hint?: string;
  /** A JSON body to send instead of `{"error": message}` (e.g. `rm`'s partial result). */
  body?: unknown;
  /** Extra response headers that belong to this error (e.g. `Retry-After`). */
  headers?: Record<string, string>;
  /** Detail for logs only; never shown to the client (e.g. why a signature failed). */
  logDetail?: string;
  cause?: unknown;
}

/** An expected failure with a stable code. Anything else thrown is an internal error. */
export class ExectlError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly body: unknown;
  readonly headers: Record<string, string>;
  readonly logDetail: string | undefined;

  constructor(code: ErrorCode, message: string, options: ExectlErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ExectlError';
    this.code = code;
    this.hint = options.hint;
    this.body = options.body;
    this.headers = options.headers ?? {};
    this.logDetail = options.logDetail;
  }

  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }

  get exitCode(): number {
    return ERROR_CATALOGUE[this.code].exit;
  }
}

/** What a failure may show, and what only the log may see. */
interface PublicFailure {
  /** The error to show: the one thrown when it is an expected failure, else `internal error`. */
  error: ExectlError;
  /** For the log only: an expected failure's `logDetail`, or a bug's stack. */
  detail: string | undefined;
}

/**
 * The one "is this safe to show?" decision, shared by the HTTP error funnel, the SSH front end
 * and the CLI's `main`: an {@link ExectlError} (other than `internal`) is shown as it is;
 * anything else is a bug, shown only as `internal error` (status 500, exit 9) — its message
 * may hold paths or data — with its stack kept for the log.
 */
export function publicFailure(err: unknown): PublicFailure {
  if (err instanceof ExectlError && err.code !== 'internal') {
    return { error: err, detail: err.logDetail };
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') {
    const error = new ExectlError('disk_full', "the server's disk is full", {
      hint: 'ask the operator to free space in its data folder, then run the command again',
    });
    return { error, detail: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
  return { error: new ExectlError('internal', 'internal error'), detail };
}

/** Shorthand for the most common command failure: 422 with one clear sentence. */
export function commandFailed(message: string, options?: ExectlErrorOptions): ExectlError {
  return new ExectlError('command_failed', message, options);
}

/**
 * The header of a 422 that says what kind of failure it is, when the client can then say what
 * to do about it (SPEC §8: `<what happened> — <what to do>`): `not-found <command that lists
 * them>` or `not-owner [<owner's email>]`. SPEC §2's body stays `{"error": message}`; this is
 * an addition that other clients may ignore.
 */
export const FAILURE_KIND_HEADER = 'X-Exec-Failure';

/** A failure kind the client turns into a hint (see {@link FAILURE_KIND_HEADER}). */
export type FailureKind =
  { kind: 'not-found'; listedBy: string } | { kind: 'not-owner'; owner: string | undefined };

/** A header value holds printable ASCII only: anything else is left out, never sent. */
const HEADER_WORDS = /^[\x21-\x7e]+( [\x21-\x7e]+)*$/;

/**
 * 422 for something the caller named that is not there (or not visible), with the command
 * that lists what is: `notFound('vm "web" not found', 'ls')`.
 */
export function notFound(message: string, listedBy: string): ExectlError {
  return commandFailed(message, { headers: { [FAILURE_KIND_HEADER]: `not-found ${listedBy}` } });
}

/** 422 for a change only the owner may make, naming the owner when known (and printable). */
export function notOwner(message: string, owner: string | undefined): ExectlError {
  const value =
    owner !== undefined && HEADER_WORDS.test(owner) ? `not-owner ${owner}` : 'not-owner';
  return commandFailed(message, { headers: { [FAILURE_KIND_HEADER]: value } });
}

/** Reads {@link FAILURE_KIND_HEADER} back; undefined for a missing or unknown value. */
export function parseFailureKind(value: string | undefined): FailureKind | undefined {
  const [kind, ...rest] = (value ?? '').trim().split(' ');
  const argument = rest.join(' ');
  if (kind === 'not-found' && HEADER_WORDS.test(argument)) return { kind, listedBy: argument };
  // The owner goes to a terminal: only printable ASCII, as notOwner sends it.
  if (kind === 'not-owner')
    return { kind, owner: HEADER_WORDS.test(argument) ? argument : undefined };
  return undefined;
}
