/**
 * An exact RFC 8259 scanner for untrusted JSON text: it validates, it does not build values.
 *
 * `JSON.parse` cannot be used for the permissions rules: it silently keeps the last of two
 * duplicate keys, it cannot tell `1` from `1.0` or `1e0`, and it cannot say where a value
 * stands in the text (the `ctx` value is forwarded as its raw bytes). So this scanner walks the
 * text once, with an explicit stack instead of recursion, so that thousands of nested
 * brackets inside `ctx` cost memory proportional to the depth and never a stack overflow.
 */

/** One member of the top-level object: its decoded key and where its value stands in the text. */
export interface JsonMember {
  /** The key after unescaping (`"\u0061"` gives `a`). */
  readonly key: string;
  /** Index of the value's first character. */
  readonly start: number;
  /** Index just past the value's last character (`text.slice(start, end)` is the value). */
  readonly end: number;
}

/**
 * The outcome of {@link scanStrictJson}. On success, `start`/`end` delimit the single JSON
 * value (surrounding whitespace excluded) and `members` lists the top-level object's members
 * in document order (`undefined` when the value is not an object). On failure, the first
 * problem met in document order: a syntax error, or a key repeated within one object.
 */
type StrictJsonScan =
  | {
      readonly ok: true;
      readonly start: number;
      readonly end: number;
      readonly members: readonly JsonMember[] | undefined;
    }
  | { readonly ok: false; readonly problem: 'syntax' }
  | { readonly ok: false; readonly problem: 'duplicate_key'; readonly key: string };

/** An open `{` or `[`; objects remember their keys to catch duplicates at every depth. */
interface Frame {
  readonly keys: Set<string> | undefined;
}

/** Arrays hold no state, so every open `[` shares one frame. */
const ARRAY_FRAME: Frame = { keys: undefined };
const SYNTAX_ERROR: StrictJsonScan = { ok: false, problem: 'syntax' };
const FAILED = -1;
const SIMPLE_ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const HEX4 = /[0-9a-fA-F]{4}/y;
const LITERALS = ['true', 'false', 'null'];

/**
 * Scans `text` as exactly one JSON value, optionally surrounded by JSON whitespace (space, tab,
 * LF, CR), per RFC 8259: strings without raw control characters and with valid escapes only,
 * numbers per the JSON grammar, the literals `true`/`false`/`null`, no trailing data, and no
 * duplicate key in any object at any depth (keys compared after unescaping).
 * Runs in time linear in the text and never recurses.
 */
export function scanStrictJson(text: string): StrictJsonScan {
  const stack: Frame[] = [];
  const members: JsonMember[] = [];
  let pos = skipWhitespace(text, 0);
  const start = pos;
  let rootIsObject = false;
  let memberKey = '';
  let memberStart = 0;

  /** Reads `"key" :` at `pos` into an object's keys; returns a failure, or undefined. */
  const readKey = (keys: Set<string>): StrictJsonScan | undefined => {
    const end = scanString(text, pos);
    if (end === FAILED) return SYNTAX_ERROR;
    const key = decodeString(text, pos, end);
    if (keys.has(key)) return { ok: false, problem: 'duplicate_key', key };
    keys.add(key);
    if (stack.length === 1) memberKey = key;
    pos = skipWhitespace(text, end);
    if (text[pos] !== ':') return SYNTAX_ERROR;
    pos = skipWhitespace(text, pos + 1);
    return undefined;
  };

  expectValue: for (;;) {
    // A value starts at `pos` (whitespace already skipped).
    if (rootIsObject && stack.length === 1) memberStart = pos;
    const c = text[pos];
    if (c === '{' || c === '[') {
      const isObject = c === '{';
      if (stack.length === 0) rootIsObject = isObject;
      pos = skipWhitespace(text, pos + 1);
      if (text[pos] === (isObject ? '}' : ']')) {
        pos += 1;
      } else {
        const frame: Frame = isObject ? { keys: new Set() } : ARRAY_FRAME;
        stack.push(frame);
        const failure = frame.keys ? readKey(frame.keys) : undefined;
        if (failure) return failure;
        continue expectValue;
      }
    } else {
      pos = scanScalar(text, pos);
      if (pos === FAILED) return SYNTAX_ERROR;
    }

    // A value just ended: close containers until one expects another value.
    for (;;) {
      const frame = stack[stack.length - 1];
      if (frame === undefined) break expectValue;
      if (rootIsObject && stack.length === 1) {
        members.push({ key: memberKey, start: memberStart, end: pos });
      }
      pos = skipWhitespace(text, pos);
      const next = text[pos];
      pos += 1;
      if (next === ',') {
        pos = skipWhitespace(text, pos);
        const failure = frame.keys ? readKey(frame.keys) : undefined;
        if (failure) return failure;
        continue expectValue;
      }
      if (next !== (frame.keys ? '}' : ']')) return SYNTAX_ERROR;
      stack.pop();
    }
  }

  const end = pos;
  if (skipWhitespace(text, end) !== text.length) return SYNTAX_ERROR;
  return { ok: true, start, end, members: rootIsObject ? members : undefined };
}

function skipWhitespace(text: string, pos: number): number {
  let i = pos;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
    i += 1;
  }
}

/** A string, number or literal at `pos`; returns the index past it, or FAILED. */
function scanScalar(text: string, pos: number): number {
  const c = text[pos];
  if (c === '"') return scanString(text, pos);
  for (const literal of LITERALS) {
    if (text.startsWith(literal, pos)) return pos + literal.length;
  }
  NUMBER.lastIndex = pos;
  return NUMBER.test(text) ? NUMBER.lastIndex : FAILED;
}

/**
 * Validates the string literal whose opening quote is at `pos`; returns the index past its
 * closing quote, or FAILED (unterminated, raw control character, or invalid escape).
 */
function scanString(text: string, pos: number): number {
  if (text[pos] !== '"') return FAILED;
  let i = pos + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return FAILED;
    if (c !== 0x5c) {
      i += 1;
      continue;
    }
    const escape = text[i + 1];
    if (escape === 'u') {
      HEX4.lastIndex = i + 2;
      if (!HEX4.test(text)) return FAILED;
      i += 6;
    } else if (escape !== undefined && SIMPLE_ESCAPES.has(escape)) {
      i += 2;
    } else {
      return FAILED;
    }
  }
  return FAILED;
}

/** The value of a string literal already validated by {@link scanString}. */
function decodeString(text: string, start: number, end: number): string {
  const inner = text.slice(start + 1, end - 1);
  // Only escapes need decoding, and JSON.parse decodes a validated literal exactly.
  return inner.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : inner;
}
