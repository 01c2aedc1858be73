// The REPL's line editor: what each key does to the line, what it echoes, and the history.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LineEditor, type EditorUpdate } from '../../../../../src/service/ssh/lobby/line-editor.js';
import type { EditKey, Key } from '../../../../../src/service/ssh/lobby/terminal-keys.js';

const P = 'exectl> ';

function editor(maxLineBytes = 1000, historyBytes = 1000): LineEditor {
  const e = new LineEditor({ prompt: P, maxLineBytes, historySize: 3, historyBytes });
  e.begin();
  return e;
}

/** `'abc'` types text; `'<left>'` presses a key. */
function keys(...parts: string[]): Key[] {
  return parts.map((p) =>
    /^<[a-z-]+>$/.test(p) ? { key: p.slice(1, -1) as EditKey } : { text: p },
  );
}

function press(e: LineEditor, ...parts: string[]): EditorUpdate[] {
  return keys(...parts).map((k) => e.press(k));
}

/** Presses the keys, then Enter, and returns the line entered. */
function enter(e: LineEditor, ...parts: string[]): string | undefined {
  return press(e, ...parts, '<enter>').at(-1)!.line;
}

const LINES: [name: string, parts: string[], line: string][] = [
  ['typed text', ['ls -l'], 'ls -l'],
  ['backspace at the end', ['lss', '<backspace>'], 'ls'],
  ['backspace at the start does nothing', ['<backspace>', 'ls'], 'ls'],
  ['insert in the middle', ['l', '<left>', 'x'], 'xl'],
  ['left then backspace', ['abc', '<left>', '<backspace>'], 'ac'],
  ['delete under the cursor', ['abc', '<home>', '<delete>'], 'bc'],
  ['delete at the end does nothing', ['abc', '<delete>'], 'abc'],
  ['Ctrl-D with text deletes under the cursor', ['abc', '<left>', '<eof>'], 'ab'],
  ['home and end', ['bc', '<home>', 'a', '<end>', 'd'], 'abcd'],
  ['left stops at the start', ['a', '<left>', '<left>', '<left>', 'b'], 'ba'],
  ['right stops at the end', ['a', '<right>', 'b'], 'ab'],
  ['kill to start', ['ls web', '<left>', '<left>', '<kill-to-start>'], 'eb'],
  ['kill to end', ['ls web', '<home>', '<right>', '<right>', '<kill-to-end>'], 'ls'],
  ['delete word', ['tag web  prod  ', '<delete-word>'], 'tag web  '],
  [
    'delete word in the middle',
    ['tag web prod', '<left>', '<left>', '<left>', '<left>', '<delete-word>'],
    'tag prod',
  ],
  ['multi-byte characters edit as one', ['é✓', '<backspace>'], 'é'],
];

for (const [name, parts, line] of LINES) {
  test(`editor: ${name}`, () => {
    assert.equal(enter(editor(), ...parts), line);
  });
}

test('editor: typing at the end echoes the text itself; backspace there erases one cell', () => {
  const e = editor();
  assert.deepEqual(press(e, 'ls', '<backspace>'), [{ echo: 'ls' }, { echo: '\b \b' }]);
});

test('editor: an edit in the middle redraws the row and puts the cursor back', () => {
  const e = editor();
  press(e, 'ac', '<left>');
  assert.deepEqual(press(e, 'b'), [{ echo: `\r${P}abc\x1b[K\x1b[1D` }]);
  assert.deepEqual(press(e, '<home>'), [{ echo: '\x1b[2D' }]);
  assert.deepEqual(press(e, '<end>'), [{ echo: '\x1b[3C' }]);
});

test('editor: Enter echoes CRLF and gives the line; the editor is ready for the next one', () => {
  const e = editor();
  assert.deepEqual(press(e, 'help', '<enter>').at(-1), { echo: '\r\n', line: 'help' });
  assert.equal(e.begin(), P);
  assert.equal(enter(e, 'ls'), 'ls');
});

test('editor: Ctrl-C abandons the line', () => {
  const e = editor();
  assert.deepEqual(press(e, 'rm web', '<interrupt>').at(-1), { echo: '^C\r\n', cancelled: true });
  assert.equal(enter(e), '');
});

test('editor: Ctrl-D on an empty line asks to leave', () => {
  assert.deepEqual(press(editor(), '<eof>'), [{ echo: '\r\n', eof: true }]);
});

test('editor: typing past the byte limit rings the bell and keeps the line', () => {
  const e = editor(4);
  assert.deepEqual(press(e, 'abc', 'é'), [{ echo: 'abc' }, { echo: '\x07' }]);
  assert.equal(enter(e, 'd'), 'abcd');
});

// The size is kept as the line changes, not measured again at each key: every edit must keep
// it right, and the limit then holds for what the line has become.
const LIMITS: [name: string, parts: string[], rings: boolean][] = [
  ['full, after backspace', ['abcd', '<backspace>', 'é'], true],
  ['room again after backspace of a 2-byte character', ['abé', '<backspace>', 'cd'], false],
  ['room again after delete', ['abcd', '<home>', '<delete>', 'e'], false],
  ['room again after Ctrl-U', ['abcd', '<kill-to-start>', 'abcd'], false],
  ['room again after Ctrl-K', ['abcd', '<home>', '<kill-to-end>', 'abcd'], false],
  ['room again after Ctrl-W', ['ab cd', '<delete-word>', 'cd'], false],
  ['a recalled entry counts', ['<up>', 'x'], true],
  ['back to the empty draft', ['<up>', '<down>', 'abcd'], false],
];
for (const [name, parts, rings] of LIMITS) {
  test(`editor: the 4-byte limit, ${name}`, () => {
    const e = editor(4);
    enter(e, 'wxyz');
    e.begin();
    const last = press(e, ...parts).at(-1)!;
    assert.equal(last.echo === '\x07', rings, JSON.stringify(last));
  });
}

test('editor: history keeps the newest entries within its byte budget', () => {
  const e = editor(1000, 10);
  for (const line of ['aaaa', 'bbbb', 'cccc', 'éé']) {
    e.begin();
    enter(e, line);
  }
  assert.deepEqual(e.history, ['cccc', 'éé']);
  e.begin();
  enter(e, 'x'.repeat(11));
  assert.deepEqual(e.history, [], 'a line over the budget is not kept');
});

test('editor: Up and Down walk the history and come back to the draft', () => {
  const e = editor();
  enter(e, 'whoami');
  e.begin();
  enter(e, 'ls');
  e.begin();
  press(e, 'dra');
  assert.deepEqual(press(e, '<up>'), [{ echo: `\r${P}ls\x1b[K` }]);
  assert.deepEqual(press(e, '<up>'), [{ echo: `\r${P}whoami\x1b[K` }]);
  assert.deepEqual(press(e, '<up>'), [{ echo: '' }]);
  assert.deepEqual(press(e, '<down>', '<down>'), [
    { echo: `\r${P}ls\x1b[K` },
    { echo: `\r${P}dra\x1b[K` },
  ]);
  assert.deepEqual(press(e, '<down>'), [{ echo: '' }]);
  assert.equal(enter(e, 'ft'), 'draft');
});

test('editor: an entry recalled from history can be edited without changing the history', () => {
  const e = editor();
  enter(e, 'ls');
  e.begin();
  assert.equal(enter(e, '<up>', ' -l'), 'ls -l');
  assert.deepEqual(e.history, ['ls', 'ls -l']);
});

test('editor: history skips blank lines and repeats, and keeps the newest entries', () => {
  const e = editor();
  for (const line of ['a', 'a', '  ', 'b', 'c', 'd']) {
    e.begin();
    enter(e, line);
  }
  assert.deepEqual(e.history, ['b', 'c', 'd']);
});

test('editor: Ctrl-L clears the screen and redraws the line', () => {
  const e = editor();
  press(e, 'ls');
  assert.deepEqual(press(e, '<clear-screen>'), [{ echo: `\x1b[H\x1b[2J\r${P}ls\x1b[K` }]);
});
