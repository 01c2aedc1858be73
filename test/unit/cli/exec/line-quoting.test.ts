// The client's quoting against the real readers of its output: the service's lexer (imported
// here, in a test only: the cli room never imports the service) and a real /bin/sh.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import fc from 'fast-check';
import { joinWords, remoteCommandLine, shellCommandLine } from '../../../../src/command-line.js';
import { lexCommandLine } from '../../../../src/shell-words.js';

/** Characters that mean something to a shell or a lexer, and some plain ones. */
const SPECIAL = [' ', "'", '"', '$', '\\', '\n', '\t', '`', '*', '?', '~', '#', ';', '|', '&'];
const char = fc.oneof(
  fc.constantFrom(
    ...SPECIAL,
    '=',
    '-',
    'a',
    'Z',
    '0',
    '/',
    '(',
    ')',
    '{',
    '}',
    '!',
    'é',
    '☃',
    '🦀',
  ),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);
/** Any word an argv can hold (no NUL byte), often full of special characters. */
const word = fc.string({ unit: char, maxLength: 12 }).filter((w) => !w.includes('\0'));
const words = fc.array(word, { maxLength: 6 });

/**
 * The words after `printf '%s\0' START` in what `sh -c script` printed, exactly as bytes
 * (START keeps printf from printing one empty word when no word follows).
 */
function shWords(script: string): string[] {
  const result = spawnSync('/bin/sh', ['-c', script], { encoding: 'buffer' });
  assert.equal(result.status, 0, result.stderr.toString());
  const parts = result.stdout.toString('utf8').split('\0');
  assert.equal(parts.pop(), '', 'output ends with a NUL');
  assert.equal(parts.shift(), 'START');
  return parts;
}

test('property: the service lexer reads joinWords(words) back as words', () => {
  fc.assert(
    fc.property(words, (ws) => {
      assert.deepEqual(lexCommandLine(joinWords(ws)), ws);
    }),
    { numRuns: 1000 },
  );
});

test('property: /bin/sh reads joinWords(words) back as words', () => {
  fc.assert(
    fc.property(words, (ws) => {
      assert.deepEqual(shWords(`printf '%s\\0' START ${joinWords(ws)}`), ws);
    }),
    { numRuns: 150 },
  );
});

test('property: ssh argv survives the service lexer and then sh -c, byte for byte', () => {
  fc.assert(
    fc.property(words, (ws) => {
      const line = remoteCommandLine('web', ['printf', '%s\\0', 'START', ...ws]);
      const lexed = lexCommandLine(line);
      assert.deepEqual(lexed.slice(0, 3), ['ssh', 'web', '--']);
      // What the service does with the words after `ssh <vm> --` (SPEC §4).
      assert.deepEqual(shWords(lexed.slice(3).join(' ')), ws);
    }),
    { numRuns: 150 },
  );
});

test('remoteCommandLine: quoted twice, after an explicit --', () => {
  assert.equal(remoteCommandLine('web', ['ls', '-la']), 'ssh web -- ls -la');
  assert.equal(
    remoteCommandLine('web', ['echo', 'a b', "it's"]),
    `ssh web -- echo ''\\''a b'\\''' ''\\''it'\\''\\'\\'''\\''s'\\'''`,
  );
  assert.equal(remoteCommandLine('web', ['--help']), 'ssh web -- --help');
});

test('property: shellCommandLine hands the VM shell the words joined by spaces, as ssh does', () => {
  fc.assert(
    fc.property(words, (ws) => {
      const lexed = lexCommandLine(shellCommandLine('web', ws));
      assert.deepEqual(lexed.slice(0, 3), ['ssh', 'web', '--']);
      // What the service does with the words after `ssh <vm> --` (SPEC §4).
      assert.equal(lexed.slice(3).join(' '), ws.join(' '));
    }),
    { numRuns: 150 },
  );
});

test('shellCommandLine: a quoted pipeline stays one command line for the VM shell', () => {
  assert.equal(shellCommandLine('web', ['ls / | wc -l']), "ssh web -- 'ls / | wc -l'");
  assert.equal(shellCommandLine('web', ['cat', '>', 'f']), "ssh web -- cat '>' f");
});
