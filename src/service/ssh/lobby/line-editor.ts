import type { Key } from './terminal-keys.js';

/** What one key press did: bytes to echo to the terminal, and maybe a finished line. */
export interface EditorUpdate {
  /** Terminal output that shows the edit (may be empty). */
  echo: string;
  /** Enter: the line typed. The editor is ready for the next line after the prompt. */
  line?: string;
  /** Ctrl-C: the line was abandoned. */
  cancelled?: true;
  /** Ctrl-D on an empty line: the user wants to leave. */
  eof?: true;
}

interface LineEditorOptions {
  prompt: string;
  /** Longest line in UTF-8 bytes; typing past it rings the bell. */
  maxLineBytes: number;
  /** Entries kept for Up/Down. */
  historySize: number;
  /** Their total size in UTF-8 bytes: the oldest go first past it. */
  historyBytes: number;
}

const BELL = '\x07';
const CLEAR_TO_END = '\x1b[K';

/**
 * A small readline for the SSH REPL, which has a client terminal in raw mode and no pty:
 * the editor itself echoes. Printable text inserts at the cursor; Backspace, Delete, Left,
 * Right, Home/Ctrl-A, End/Ctrl-E, Ctrl-U, Ctrl-K and Ctrl-W edit; Up/Down walk the history
 * (the line being typed is kept as a draft); Ctrl-L clears the screen; Ctrl-C abandons the
 * line; Ctrl-D leaves on an empty line and deletes under the cursor otherwise; Enter
 * finishes the line and records it in the history (not blank lines, not a repeat of the last).
 *
 * The edited line is assumed to fit on one terminal row and each character to take one
 * column: edits redraw the row from its start. A key costs time in proportion to the echo it
 * makes, never to the line's length alone: typing at the end of a long line echoes one
 * character and does not measure the line again.
 */
export class LineEditor {
  readonly #options: LineEditorOptions;
  readonly #history: string[] = [];
  #historyBytes = 0;
  #chars: string[] = [];
  /** The UTF-8 size of `#chars`, kept as it changes. */
  #bytes = 0;
  #cursor = 0;
  /** Index into the history while browsing it; `history.length` means the draft. */
  #browsing = 0;
  #draft: string[] = [];

  constructor(options: LineEditorOptions) {
    this.#options = options;
  }

  /** Lines entered so far, oldest first. */
  get history(): readonly string[] {
    return this.#history;
  }

  /** Starts a new, empty line and returns the prompt to print. */
  begin(): string {
    this.#chars = [];
    this.#bytes = 0;
    this.#cursor = 0;
    this.#browsing = this.#history.length;
    this.#draft = [];
    return this.#options.prompt;
  }

  press(key: Key): EditorUpdate {
    if ('text' in key) return this.#insert([...key.text]);
    switch (key.key) {
      case 'enter':
        return this.#enter();
      case 'interrupt':
        this.begin();
        return { echo: '^C\r\n', cancelled: true };
      case 'eof':
        if (this.#chars.length === 0) return { echo: '\r\n', eof: true };
        return this.#deleteAt(this.#cursor);
      case 'backspace':
        return this.#backspace();
      case 'delete':
        return this.#deleteAt(this.#cursor);
      case 'left':
        return this.#moveTo(this.#cursor - 1);
      case 'right':
        return this.#moveTo(this.#cursor + 1);
      case 'home':
        return this.#moveTo(0);
      case 'end':
        return this.#moveTo(this.#chars.length);
      case 'up':
        return this.#browse(this.#browsing - 1);
      case 'down':
        return this.#browse(this.#browsing + 1);
      case 'kill-to-start':
        return this.#replace(this.#chars.slice(this.#cursor), 0);
      case 'kill-to-end':
        return this.#replace(this.#chars.slice(0, this.#cursor), this.#cursor);
      case 'delete-word':
        return this.#deleteWord();
      case 'clear-screen':
        return { echo: '\x1b[H\x1b[2J' + this.#redraw() };
    }
  }

  #insert(typed: string[]): EditorUpdate {
    const text = typed.join('');
    const bytes = this.#bytes + Buffer.byteLength(text);
    if (typed.length === 0 || bytes > this.#options.maxLineBytes) return { echo: BELL };
    const atEnd = this.#cursor === this.#chars.length;
    // Each way costs about what was typed (a copy of the line only when the paste is longer).
    if (!atEnd) this.#chars.splice(this.#cursor, 0, ...typed);
    else if (typed.length >= this.#chars.length) this.#chars = this.#chars.concat(typed);
    else for (const c of typed) this.#chars.push(c);
    this.#bytes = bytes;
    this.#cursor += typed.length;
    return { echo: atEnd ? typed.join('') : this.#redraw() };
  }

  #enter(): EditorUpdate {
    const line = this.#chars.join('');
    const last = this.#history[this.#history.length - 1];
    if (line.trim() !== '' && line !== last) {
      this.#history.push(line);
      this.#historyBytes += this.#bytes;
      while (
        this.#history.length > this.#options.historySize ||
        this.#historyBytes > this.#options.historyBytes
      ) {
        this.#historyBytes -= Buffer.byteLength(this.#history.shift()!);
      }
    }
    this.begin();
    return { echo: '\r\n', line };
  }

  #backspace(): EditorUpdate {
    if (this.#cursor === 0) return { echo: '' };
    const atEnd = this.#cursor === this.#chars.length;
    const [removed] = this.#chars.splice(this.#cursor - 1, 1);
    this.#bytes -= Buffer.byteLength(removed!);
    this.#cursor -= 1;
    return { echo: atEnd && isAscii(removed) ? '\b \b' : this.#redraw() };
  }

  #deleteAt(index: number): EditorUpdate {
    if (index >= this.#chars.length) return { echo: '' };
    const [removed] = this.#chars.splice(index, 1);
    this.#bytes -= Buffer.byteLength(removed!);
    return { echo: this.#redraw() };
  }

  #deleteWord(): EditorUpdate {
    let start = this.#cursor;
    while (start > 0 && this.#chars[start - 1] === ' ') start -= 1;
    while (start > 0 && this.#chars[start - 1] !== ' ') start -= 1;
    const kept = [...this.#chars.slice(0, start), ...this.#chars.slice(this.#cursor)];
    return this.#replace(kept, start);
  }

  #moveTo(position: number): EditorUpdate {
    const target = Math.max(0, Math.min(this.#chars.length, position));
    const step = target - this.#cursor;
    this.#cursor = target;
    if (step === 0) return { echo: '' };
    return { echo: step < 0 ? `\x1b[${-step}D` : `\x1b[${step}C` };
  }

  #browse(index: number): EditorUpdate {
    if (index < 0 || index > this.#history.length) return { echo: '' };
    if (this.#browsing === this.#history.length) this.#draft = this.#chars;
    this.#browsing = index;
    const entry = index === this.#history.length ? this.#draft : [...this.#history[index]!];
    return this.#replace([...entry], entry.length);
  }

  #replace(chars: string[], cursor: number): EditorUpdate {
    this.#chars = chars;
    this.#bytes = Buffer.byteLength(chars.join(''));
    this.#cursor = cursor;
    return { echo: this.#redraw() };
  }

  /** Rewrites the row: carriage return, prompt, line, clear the rest, cursor back in place. */
  #redraw(): string {
    const back = this.#chars.length - this.#cursor;
    return (
      '\r' +
      this.#options.prompt +
      this.#chars.join('') +
      CLEAR_TO_END +
      (back > 0 ? `\x1b[${back}D` : '')
    );
  }
}

function isAscii(c: string | undefined): boolean {
  return c !== undefined && c.length === 1 && c.charCodeAt(0) < 0x80;
}
