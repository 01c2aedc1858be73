// The admin socket's protocol (SPEC §7): one connection carries one request, a JSON object the
// client ends by closing its side, and one answer, a JSON object on one line. Small and strict:
// a request over the size limit, not JSON, or with a field too many is refused as a whole.
import { join } from 'node:path';
import { ERROR_CATALOGUE, ExectlError, type ErrorCode } from '../../errors.js';

/** Where the socket lives in a data folder: a folder of its own, private (0700), and the socket. */
export const ADMIN_FOLDER = 'admin';
const ADMIN_SOCKET = 'admin.sock';

/**
 * The longest path a Unix socket may have on Linux (`sun_path` is 108 bytes with its NUL).
 * Node does not refuse a longer one: it silently binds a truncated path, elsewhere.
 */
const MAX_SOCKET_PATH_BYTES = 107;

/** The largest request: an email and a few keys (an 8192-bit RSA key is about 1.4 KB). */
export const MAX_ADMIN_REQUEST_BYTES = 64 * 1024;

/** What a client may ask. */
export type AdminRequest =
  | { op: 'add'; email: string; keys: string[] }
  | { op: 'list' }
  | { op: 'remove'; email: string }
  | { op: 'mail' };

/** The one answer: the operation's result, or the error as the CLI shows it. */
export type AdminAnswer =
  { ok: unknown } | { error: { code: ErrorCode; message: string; hint?: string } };

/**
 * The admin socket's path in the data folder `dataDir`, or undefined when that path is too long
 * for a Unix socket (the server then runs without one and the CLI finds none).
 */
export function adminSocketPath(dataDir: string): string | undefined {
  const path = join(dataDir, ADMIN_FOLDER, ADMIN_SOCKET);
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES ? path : undefined;
}

/**
 * The request in `text`, or a `usage` error naming what is wrong with it.
 *
 * @throws usage `bad admin request: ...` for anything but exactly the fields of one operation.
 */
export function parseAdminRequest(text: string): AdminRequest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest('not a JSON object');
  }
  const fields = value as Record<string, unknown>;
  const expect = (names: string[]) => {
    const extra = Object.keys(fields).find((name) => !names.includes(name));
    if (extra !== undefined) throw badRequest(`unknown field ${JSON.stringify(extra)}`);
  };
  const stringField = (name: string): string => {
    const field = fields[name];
    if (typeof field !== 'string') throw badRequest(`${name} must be a string`);
    return field;
  };
  switch (fields.op) {
    case 'list':
      expect(['op']);
      return { op: 'list' };
    case 'mail':
      expect(['op']);
      return { op: 'mail' };
    case 'remove':
      expect(['op', 'email']);
      return { op: 'remove', email: stringField('email') };
    case 'add': {
      expect(['op', 'email', 'keys']);
      const keys = fields.keys;
      if (!Array.isArray(keys) || !keys.every((k): k is string => typeof k === 'string')) {
        throw badRequest('keys must be a list of strings');
      }
      return { op: 'add', email: stringField('email'), keys };
    }
    default:
      throw badRequest('op must be "add", "list", "remove" or "mail"');
  }
}

/** The answer to send for a failure the client may see (see `publicFailure`). */
export function errorAnswer(error: ExectlError): AdminAnswer {
  const { code, message, hint } = error;
  return { error: hint === undefined ? { code, message } : { code, message, hint } };
}

/**
 * The error an answer's `error` field stands for, as the offline path would have thrown it;
 * a malformed one is a `server_error`.
 */
export function answerError(error: unknown): ExectlError {
  const { code, message, hint } = (error ?? {}) as Record<string, unknown>;
  if (
    typeof code !== 'string' ||
    !Object.hasOwn(ERROR_CATALOGUE, code) ||
    typeof message !== 'string' ||
    (hint !== undefined && typeof hint !== 'string')
  ) {
    return new ExectlError('server_error', 'the server sent a malformed admin answer', {
      hint: "see the server's log",
    });
  }
  return new ExectlError(code as ErrorCode, message, hint === undefined ? {} : { hint });
}

function badRequest(what: string): ExectlError {
  return new ExectlError('usage', `bad admin request: ${what}`, {
    hint: 'send one JSON object: {"op":"list"}, {"op":"add",…}, {"op":"remove",…} or {"op":"mail"}',
  });
}
