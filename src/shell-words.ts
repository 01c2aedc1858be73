// Shell-style words, shared by the service (its /exec and SSH front ends lex command lines
// with it) and the client (which quotes words so the service reads them back exactly).

import { ExectlError } from './errors.js';

/**
 * Splits one command line into words the way a POSIX shell does, without expanding anything
 * (SPEC §2):
 *
 * - words are separated by runs of space, tab and newline;
 * - `'...'` is literal up to the next `'` (no escapes inside);
 * - `"..."` is literal except that a backslash escapes `\`, `"`, `$` and `` ` `` and a
 *   backslash-newline is removed; any other backslash inside double quotes stays, as in sh;
 * - outside quotes a backslash makes the next character literal, and backslash-newline is a
 *   line continuation (both removed);
 * - quoted parts join the surrounding word (`a'b c'd` is one word), and `''` or `""` alone is an
 *   empty word;
 * - nothing else is special: `$HOME`, `*`, `~`, `#`, `;`, `|`, `&&`, `>` are ordinary characters.
 *
 * NUL bytes and size limits are the front end's concern (SPEC §2 gives them their own 400 and
 * 413 answers); the lexer passes every other character through unchanged.
 *
 * @throws ExectlError `bad_request` `invalid command syntax: unterminated single quote`,
 *   `... unterminated double quote` or `... trailing backslash`.
 * @example lexCommandLine(`comment web "hello world" 'it''s'`) // ['comment', 'web', 'hello world', 'its']
 */
export function lexCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  // A word exists once any part of it was seen, even an empty quoted part: `''` is a word.
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i += 1;
    } else if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) throw syntaxError('unterminated single quote');
      word += line.slice(i + 1, close);
      inWord = true;
      i = close + 1;
    } else if (c === '"') {
      const part = readDoubleQuoted(line, i + 1);
      word += part.text;
      inWord = true;
      i = part.end;
    } else if (c === '\\') {
      const next = line[i + 1];
      if (next === undefined) throw syntaxError('trailing backslash');
      if (next !== '\n') {
        word += next;
        inWord = true;
      }
      i += 2;
    } else {
      word += c;
      inWord = true;
      i += 1;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** Characters a backslash escapes inside double quotes (POSIX sh, minus expansion). */
const DOUBLE_QUOTE_ESCAPABLE = new Set(['\\', '"', '$', '`']);

/** Reads a double-quoted part starting just after its opening quote. */
function readDoubleQuoted(line: string, start: number): { text: string; end: number } {
  let text = '';
  let i = start;
  while (i < line.length) {
    const c = line[i]!;
    if (c === '"') return { text, end: i + 1 };
    if (c === '\\') {
      const next = line[i + 1];
      if (next === undefined) break;
      if (DOUBLE_QUOTE_ESCAPABLE.has(next)) text += next;
      else if (next !== '\n') text += c + next;
      i += 2;
    } else {
      text += c;
      i += 1;
    }
  }
  throw syntaxError('unterminated double quote');
}

function syntaxError(why: string): ExectlError {
  return new ExectlError('bad_request', `invalid command syntax: ${why}`, {
    hint: 'close every quote, or escape the character with a backslash',
  });
}

/**
 * Words made only of these characters mean the same to sh unquoted, so they stay bare. `=` is
 * left out on purpose: a bare `A=b` in command position is an assignment to sh, not a word.
 */
const SAFE_BARE_WORD = /^[A-Za-z0-9_@%+:,./-]+$/;

/**
 * Quotes one word so that both {@link lexCommandLine} and a POSIX `sh` read it back exactly:
 * bare when it holds only safe characters (`ls`, `-l`, `/tmp/x.txt`), otherwise single-quoted with
 * each `'` written as `'\''`. The empty word becomes `''`.
 *
 * @example [ 'ls', "it's", '' ].map(quoteForShell).join(' ') // `ls 'it'\''s' ''`
 */
export function quoteForShell(word: string): string {
  if (SAFE_BARE_WORD.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
