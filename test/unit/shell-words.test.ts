import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { ExectlError } from '../../src/errors.js';
import { lexCommandLine, quoteForShell } from '../../src/shell-words.js';
import { BranchShare } from '../helpers/branch-share.js';

const CASES: [line: string, words: string[]][] = [
  ['', []],
  ['   \t\n ', []],
  ['ls', ['ls']],
  ['  ls  -l  ', ['ls', '-l']],
  ['a\tb\nc', ['a', 'b', 'c']],
  ['ssh-key list', ['ssh-key', 'list']],
  [`'hello world'`, ['hello world']],
  [`'a\\b'`, ['a\\b']],
  [`'say "hi"'`, ['say "hi"']],
  [`'$HOME \`x\`'`, ['$HOME `x`']],
  [`'line\nbreak'`, ['line\nbreak']],
  [`"hello world"`, ['hello world']],
  [`"a\\"b"`, ['a"b']],
  [`"a\\\\b"`, ['a\\b']],
  [`"\\$HOME"`, ['$HOME']],
  ['"\\`"', ['`']],
  [`"a\\nb"`, ['a\\nb']],
  [`"a\\'b"`, ["a\\'b"]],
  [`"it's"`, ["it's"]],
  [`"line\\\ncontinued"`, ['linecontinued']],
  [`"two\nlines"`, ['two\nlines']],
  ['a\\ b', ['a b']],
  ['\\"', ['"']],
  [`\\'`, ["'"]],
  ['\\\\', ['\\']],
  ['a\\\nb', ['ab']],
  ['a \\\n b', ['a', 'b']],
  ['\\$HOME', ['$HOME']],
  [`a'b c'd"e f"g`, ['ab cde fg']],
  [`''`, ['']],
  [`""`, ['']],
  [`comment vm ''`, ['comment', 'vm', '']],
  [`a '' b "" c`, ['a', '', 'b', '', 'c']],
  [`x''`, ['x']],
  ['$HOME ~ * ?', ['$HOME', '~', '*', '?']],
  ['a;b | c && d > e < f', ['a;b', '|', 'c', '&&', 'd', '>', 'e', '<', 'f']],
  ['ls;rm -rf /', ['ls;rm', '-rf', '/']],
  ['echo $(id) `id`', ['echo', '$(id)', '`id`']],
  ['# not a comment', ['#', 'not', 'a', 'comment']],
  ['comment web héllo 🚀 日本', ['comment', 'web', 'héllo', '🚀', '日本']],
  [`"🚀 ünï"`, ['🚀 ünï']],
  ['a\u00a0b', ['a\u00a0b']],
  ['a\rb', ['a\rb']],
  ['--name=web --tag x', ['--name=web', '--tag', 'x']],
];

test('lexCommandLine splits words as a POSIX shell, expanding nothing', () => {
  for (const [line, words] of CASES) {
    assert.deepEqual(lexCommandLine(line), words, JSON.stringify(line));
  }
});

const BAD: [line: string, message: string][] = [
  [`'abc`, 'invalid command syntax: unterminated single quote'],
  [`ls 'it's'`, 'invalid command syntax: unterminated single quote'],
  [`"abc`, 'invalid command syntax: unterminated double quote'],
  [`"a\\"`, 'invalid command syntax: unterminated double quote'],
  [`"a\\`, 'invalid command syntax: unterminated double quote'],
  [`ls "`, 'invalid command syntax: unterminated double quote'],
  [`'a' "b`, 'invalid command syntax: unterminated double quote'],
  ['ls \\', 'invalid command syntax: trailing backslash'],
  ['\\', 'invalid command syntax: trailing backslash'],
];

test('lexCommandLine refuses unbalanced quotes and a trailing backslash with 400', () => {
  for (const [line, message] of BAD) {
    assert.throws(
      () => lexCommandLine(line),
      (err: unknown) => {
        assert.ok(err instanceof ExectlError, JSON.stringify(line));
        assert.equal(err.code, 'bad_request');
        assert.equal(err.status, 400);
        assert.equal(err.message, message, JSON.stringify(line));
        return true;
      },
    );
  }
});

test('quoteForShell leaves safe words bare and single-quotes the rest', () => {
  const cases: [string, string][] = [
    ['ls', 'ls'],
    ['-l', '-l'],
    ['/tmp/a_b.txt', '/tmp/a_b.txt'],
    ['user@host:22', 'user@host:22'],
    ['', `''`],
    ['a b', `'a b'`],
    ["it's", `'it'\\''s'`],
    ['A=b', `'A=b'`],
    ['$HOME', `'$HOME'`],
    ['~', `'~'`],
    ['é', `'é'`],
    ['a\nb', `'a\nb'`],
  ];
  for (const [word, quoted] of cases) assert.equal(quoteForShell(word), quoted);
});

/** Words biased towards the characters that matter to a shell, plus any unicode. */
const shellyWord = fc.oneof(
  fc.string({ unit: fc.constantFrom("'", '"', '\\', ' ', '\t', '\n', '$', '`', 'a', 'é', '🚀') }),
  fc.string({ unit: 'binary' }),
);

test('property: quoting each word and joining with spaces lexes back to the same words', () => {
  fc.assert(
    fc.property(fc.array(shellyWord, { maxLength: 8 }), (words) => {
      assert.deepEqual(lexCommandLine(words.map(quoteForShell).join(' ')), words);
    }),
    { numRuns: 2000 },
  );
});

test('property: any string lexes to words or fails with a 400 invalid command syntax', () => {
  const anyLine = fc.oneof(
    fc.string({ unit: fc.constantFrom("'", '"', '\\', ' ', '\n', 'a', '$') }),
    fc.string({ unit: 'binary' }),
  );
  fc.assert(
    fc.property(anyLine, (line) => {
      try {
        const words = lexCommandLine(line);
        assert.ok(words.every((w) => typeof w === 'string'));
      } catch (err) {
        assert.ok(err instanceof ExectlError);
        assert.equal(err.code, 'bad_request');
        assert.match(
          err.message,
          /^invalid command syntax: (unterminated (single|double) quote|trailing backslash)$/,
        );
      }
    }),
    { numRuns: 3000 },
  );
});

/** Asks the real /bin/sh how it splits `line` (printf prints each argument NUL-terminated). */
function shWords(line: string): string[] | 'syntax error' {
  const run = spawnSync('/bin/sh', ['-c', `printf '%s\\0' X ${line}`], { encoding: 'utf8' });
  if (run.status !== 0) return 'syntax error';
  return run.stdout.split('\0').slice(1, -1);
}

test('differential: the lexer splits like /bin/sh on quoting characters', (t) => {
  const share = new BranchShare();
  // Newline, `$`, backquote and glob characters are left out: sh would end the command,
  // expand or glob them, which is exactly what the lexer must not do (the table covers them).
  const line = fc.string({
    unit: fc.constantFrom("'", '"', '\\', ' ', '\t', 'a', 'b', 'é'),
    maxLength: 12,
  });
  fc.assert(
    fc.property(line, (text) => {
      let ours: string[] | 'syntax error';
      try {
        ours = lexCommandLine(text);
      } catch (err) {
        // sh keeps a final lone backslash; exectl refuses it on purpose.
        if (err instanceof ExectlError && err.message.endsWith('trailing backslash'))
          return share.refused();
        ours = 'syntax error';
      }
      share.accepted();
      assert.deepEqual(ours, shWords(text), JSON.stringify(text));
    }),
    { numRuns: 150 },
  );
  share.assertFloor((message) => t.diagnostic(message));
});

test('differential: /bin/sh reads quoteForShell output back as the same words', () => {
  // One sh process for many words: NUL cannot be in an argv, everything else is fair game.
  const words = fc.sample(
    shellyWord.filter((w) => !w.includes('\0')),
    { numRuns: 300, seed: 42 },
  );
  assert.deepEqual(shWords(words.map(quoteForShell).join(' ')), words);
});
