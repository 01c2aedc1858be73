import { StringDecoder } from 'node:string_decoder';

/** An editing key, decoded from what a terminal in raw mode sends. */
export type EditKey =
  | 'enter'
  | 'backspace'
  | 'delete'
  | 'left'
  | 'right'
  | 'up'
  | 'down'
  | 'home'
  | 'end'
  /** Ctrl-C. */
  | 'interrupt'
  /** Ctrl-D. */
  | 'eof'
  /** Ctrl-U. */
  | 'kill-to-start'
  /** Ctrl-K. */
  | 'kill-to-end'
  /** Ctrl-W. */
  | 'delete-word'
  /** Ctrl-L. */
  | 'clear-screen';

/** Printable text typed or pasted (never a control character), or one editing key. */
export type Key = { text: string } | { key: EditKey };

const CONTROL_KEYS: Record<string, EditKey> = {
  '\x01': 'home',
  '\x02': 'left',
  '\x03': 'interrupt',
  '\x04': 'eof',
  '\x05': 'end',
  '\x06': 'right',
  '\x08': 'backspace',
  '\x0b': 'kill-to-end',
  '\x0c': 'clear-screen',
  '\x0e': 'down',
  '\x10': 'up',
  '\x15': 'kill-to-start',
  '\x17': 'delete-word',
  '\x7f': 'backspace',
};

/** Final bytes of `ESC [ ...` and `ESC O x` sequences (xterm, VT100, with or without modifiers). */
const FINAL_KEYS: Record<string, EditKey> = {
  A: 'up',
  B: 'down',
  C: 'right',
  D: 'left',
  H: 'home',
  F: 'end',
};

/** `ESC [ n ~` sequences (VT220 editing keypad). */
const TILDE_KEYS: Record<string, EditKey> = {
  '1': 'home',
  '7': 'home',
  '4': 'end',
  '8': 'end',
  '3': 'delete',
};

/** An escape sequence longer than this is garbage, not a key: it is dropped. */
const MAX_SEQUENCE = 32;

/**
 * Turns the bytes a client's terminal sends into keys. Input arrives in arbitrary chunks (a
 * UTF-8 character or an escape sequence may be split between two), so the decoder keeps what
 * it cannot finish yet. Unknown sequences and control characters are dropped; `\r\n` is one
 * Enter. It never throws, whatever the bytes: the input comes from the network.
 */
export class KeyDecoder {
  readonly #utf8 = new StringDecoder('utf8');
  #pending = '';
  #afterCarriageReturn = false;

  feed(chunk: Buffer): Key[] {
    const input = this.#pending + this.#utf8.write(chunk);
    this.#pending = '';
    const keys: Key[] = [];
    const push = (key: Key): void => {
      const last = keys[keys.length - 1];
      if ('text' in key && last !== undefined && 'text' in last) last.text += key.text;
      else keys.push(key);
    };
    let i = 0;
    while (i < input.length) {
      const c = input[i]!;
      const wasCarriageReturn = this.#afterCarriageReturn;
      this.#afterCarriageReturn = c === '\r';
      if (c === '\x1b') {
        const sequence = readEscape(input, i);
        if (sequence === undefined) {
          this.#pending = input.slice(i); // Incomplete: wait for the rest.
          break;
        }
        if (sequence.key !== undefined) push({ key: sequence.key });
        i += sequence.length;
      } else if (c === '\r' || c === '\n') {
        if (!(c === '\n' && wasCarriageReturn)) push({ key: 'enter' });
        i += 1;
      } else if (CONTROL_KEYS[c] !== undefined) {
        push({ key: CONTROL_KEYS[c] });
        i += 1;
      } else if (isControl(c)) {
        i += 1;
      } else {
        // A run of printable text at once: a paste of 64 KiB is one key, made in one step.
        PRINTABLE_RUN.lastIndex = i;
        const text = PRINTABLE_RUN.exec(input)![0];
        push({ text });
        i += text.length;
      }
    }
    return keys;
  }
}

/** Characters that are neither C0 nor C1 controls (the complement of {@link isControl}). */
const PRINTABLE_RUN = /[^\x00-\x1f\x7f-\x9f]+/y;

function isControl(c: string): boolean {
  const code = c.codePointAt(0)!;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

/**
 * Reads the escape sequence at `start`: its length and the key it means (undefined for one
 * this editor does not use), or undefined when the input ends before the sequence does.
 */
function readEscape(input: string, start: number): { length: number; key?: EditKey } | undefined {
  const introducer = input[start + 1];
  if (introducer === undefined) return undefined;
  if (introducer === 'O') {
    const final = input[start + 2];
    if (final === undefined) return undefined;
    return withKey(3, FINAL_KEYS[final]);
  }
  if (introducer !== '[') return { length: 1 }; // Alt+key: drop the ESC, keep the key.
  let end = start + 2;
  // Parameter and intermediate bytes, then one final byte (ECMA-48 §5.4).
  while (end < input.length && input.charCodeAt(end) >= 0x20 && input.charCodeAt(end) <= 0x3f) {
    end += 1;
    // Too long to be a key: drop it here. Deciding on the bytes read so far, never on where
    // the input was cut, keeps the result the same however the chunks fall.
    if (end - start >= MAX_SEQUENCE) return { length: end - start };
  }
  const final = input[end];
  if (final === undefined) return undefined;
  const length = end + 1 - start;
  const code = final.charCodeAt(0);
  if (code < 0x40 || code > 0x7e) return { length: length - 1 }; // Malformed: drop ESC [ ....
  const params = input.slice(start + 2, end);
  if (final === '~') return withKey(length, TILDE_KEYS[params.split(';')[0] ?? '']);
  return withKey(length, FINAL_KEYS[final]);
}

function withKey(length: number, key: EditKey | undefined): { length: number; key?: EditKey } {
  return key === undefined ? { length } : { length, key };
}
