import { TokenError } from './errors.js';
import { scanStrictJson, type JsonMember } from './strict-json.js';

/** The command paths a token may run when its permissions have no `cmds` (SPEC §1.3). */
export const DEFAULT_CMDS: readonly string[] = Object.freeze([
  'help',
  'ls',
  'new',
  'whoami',
  'ssh-key list',
  'share show',
  'svc0-to-svc1',
  'team',
  'team members',
]);

/** The permissions a token carries; an absent field means "use the default" (SPEC §1.3). */
export interface Permissions {
  /** Unix seconds after which the token is invalid. */
  exp?: number;
  /** Unix seconds before which the token is invalid. */
  nbf?: number;
  /** Command paths the token may run (`[]` allows nothing). */
  cmds?: readonly string[];
  /** The exact source text of the `ctx` value as it stands in the payload; never interpreted. */
  ctxRaw?: string;
}

const TIME_FIELDS = ['exp', 'nbf'] as const;
const KNOWN_FIELDS: ReadonlySet<string> = new Set(['exp', 'nbf', 'cmds', 'ctx']);
const EARLIEST_TIME = 946684800;
const LATEST_TIME = 4102444800;
/** Digits only: no sign, fraction, exponent or leading zero (rule 6). */
const INTEGER_LITERAL = /^(?:0|[1-9][0-9]*)$/;
/** JavaScript's `\s`: JSON's four plus every other Unicode space, including a BOM. */
const EDGE_WHITESPACE = /^\s|\s$/;
const INVALID_JSON = 'invalid permissions JSON';
/** Long or odd keys are shortened and escaped before they go into an error message. */
const MAX_KEY_IN_MESSAGE = 64;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function reject(reason: string): never {
  throw new TokenError('bad_permissions', reason);
}

/**
 * Parses a token's payload bytes into {@link Permissions}, enforcing SPEC §1.3 rules 1–7 in
 * order (rules 8 and 9 are the callers'): valid UTF-8 first, then no leading or trailing
 * whitespace, no CR or LF, no NUL byte, one valid JSON object without duplicate keys at any
 * depth, only the top-level keys `exp`, `nbf`, `cmds` and `ctx`, `exp`/`nbf` written as plain
 * integers and within 946684800..4102444800; and `cmds` an array of non-empty strings.
 *
 * @throws TokenError `bad_permissions`, whose message is `invalid token: <short reason>`.
 */
export function parsePermissions(payload: Uint8Array): Permissions {
  const text = decodeUtf8(payload);
  if (EDGE_WHITESPACE.test(text)) reject('permissions JSON has leading or trailing whitespace');
  if (/[\r\n]/.test(text)) reject('permissions JSON contains CR or LF');
  if (text.includes('\0')) reject('permissions JSON contains a NUL byte');

  const members = scanObjectMembers(text);
  const unknown = members.find((m) => !KNOWN_FIELDS.has(m.key));
  if (unknown) reject(`unknown field ${quoteKey(unknown.key)} in permissions`);
  const raw = new Map(members.map((m) => [m.key, text.slice(m.start, m.end)]));

  const permissions: Permissions = {};
  for (const field of TIME_FIELDS) {
    const literal = raw.get(field);
    if (literal !== undefined && !INTEGER_LITERAL.test(literal)) {
      reject(`${field} must be an integer`);
    }
  }
  for (const field of TIME_FIELDS) {
    const literal = raw.get(field);
    if (literal === undefined) continue;
    const seconds = Number(literal);
    if (seconds < EARLIEST_TIME || seconds > LATEST_TIME) reject(`${field} out of range`);
    permissions[field] = seconds;
  }
  const cmds = raw.get('cmds');
  if (cmds !== undefined) permissions.cmds = parseCmds(cmds);
  const ctx = raw.get('ctx');
  if (ctx !== undefined) permissions.ctxRaw = ctx;
  return permissions;
}

/** The command paths `p` allows: its `cmds`, or {@link DEFAULT_CMDS} when it has none. */
export function effectiveCmds(p: Permissions): readonly string[] {
  return p.cmds ?? DEFAULT_CMDS;
}

/**
 * Writes `p` as compact JSON with keys in the order exp, nbf, cmds, ctx (`ctxRaw` inserted
 * verbatim). The result is checked with {@link parsePermissions} before it is returned, so it
 * always passes and parses back to the same permissions.
 *
 * @throws TokenError `bad_permissions` when `p` cannot be written as valid permissions: a field
 *   breaks a rule, or `ctxRaw` is not exactly one JSON value without surrounding whitespace.
 */
export function serializePermissions(p: Permissions): string {
  const fields: string[] = [];
  if (p.exp !== undefined) fields.push(`"exp":${JSON.stringify(p.exp)}`);
  if (p.nbf !== undefined) fields.push(`"nbf":${JSON.stringify(p.nbf)}`);
  if (p.cmds !== undefined) fields.push(`"cmds":${JSON.stringify(p.cmds)}`);
  if (p.ctxRaw !== undefined) {
    // A ctxRaw such as `1,"exp":2000000000` would smuggle in fields: it must be one value.
    const scan = scanStrictJson(p.ctxRaw);
    const whole = scan.ok && scan.start === 0 && scan.end === p.ctxRaw.length;
    if (!whole && !(!scan.ok && scan.problem === 'duplicate_key')) reject(INVALID_JSON);
    fields.push(`"ctx":${p.ctxRaw}`);
  }
  const text = `{${fields.join(',')}}`;
  const bytes = Buffer.from(text, 'utf8');
  // Lone surrogates in ctxRaw would silently become U+FFFD and change the signed bytes.
  if (bytes.toString('utf8') !== text) reject('permissions JSON is not valid UTF-8');
  parsePermissions(bytes);
  return text;
}

function decodeUtf8(payload: Uint8Array): string {
  try {
    return utf8.decode(payload);
  } catch {
    return reject('permissions JSON is not valid UTF-8');
  }
}

/** Scans `text` as one JSON object and returns its members (rule 4). */
function scanObjectMembers(text: string): readonly JsonMember[] {
  const scan = scanStrictJson(text);
  if (!scan.ok) {
    if (scan.problem === 'duplicate_key') {
      reject(`duplicate key ${quoteKey(scan.key)} in permissions JSON`);
    }
    reject(INVALID_JSON);
  }
  if (scan.members === undefined) reject(INVALID_JSON);
  return scan.members;
}

function parseCmds(literal: string): readonly string[] {
  // The literal already passed the strict scan, so JSON.parse (iterative in V8) only
  // materialises it; nothing it could hide (duplicates, number forms) matters here.
  const value: unknown = literal.startsWith('[') ? JSON.parse(literal) : undefined;
  if (!Array.isArray(value) || !value.every((c) => typeof c === 'string' && c !== '')) {
    reject('cmds must be an array of non-empty strings');
  }
  return Object.freeze(value as string[]);
}

/**
 * A key as it appears in an error message: JSON-quoted, cut at {@link MAX_KEY_IN_MESSAGE}
 * characters, and with everything outside printable ASCII escaped as `\uXXXX`, so an attacker's
 * key can neither break the message's single line nor send control sequences to a terminal.
 */
function quoteKey(key: string): string {
  const shown = key.length > MAX_KEY_IN_MESSAGE ? `${key.slice(0, MAX_KEY_IN_MESSAGE)}...` : key;
  return JSON.stringify(shown).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
