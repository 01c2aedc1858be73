// The key decoder reads untrusted bytes from the network: table tests for what terminals send,
// and properties for any bytes cut into any chunks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { KeyDecoder, type Key } from '../../../../../src/service/ssh/lobby/terminal-keys.js';

const decode = (...chunks: (string | Buffer)[]): Key[] => {
  const decoder = new KeyDecoder();
  return chunks.flatMap((c) => decoder.feed(typeof c === 'string' ? Buffer.from(c, 'utf8') : c));
};

const TABLE: [name: string, input: string, keys: Key[]][] = [
  ['plain text', 'ls -l', [{ text: 'ls -l' }]],
  ['UTF-8 text', 'comment web "héllo ✓"', [{ text: 'comment web "héllo ✓"' }]],
  ['Enter as CR', 'help\r', [{ text: 'help' }, { key: 'enter' }]],
  ['Enter as LF', 'help\n', [{ text: 'help' }, { key: 'enter' }]],
  ['CR LF is one Enter', 'a\r\nb', [{ text: 'a' }, { key: 'enter' }, { text: 'b' }]],
  ['two CRs are two Enters', '\r\r', [{ key: 'enter' }, { key: 'enter' }]],
  ['DEL and BS are backspace', '\x7f\x08', [{ key: 'backspace' }, { key: 'backspace' }]],
  ['Ctrl-C', '\x03', [{ key: 'interrupt' }]],
  ['Ctrl-D', '\x04', [{ key: 'eof' }]],
  ['Ctrl-A/E', '\x01\x05', [{ key: 'home' }, { key: 'end' }]],
  ['Ctrl-B/F', '\x02\x06', [{ key: 'left' }, { key: 'right' }]],
  ['Ctrl-P/N', '\x10\x0e', [{ key: 'up' }, { key: 'down' }]],
  [
    'Ctrl-U/K/W/L',
    '\x15\x0b\x17\x0c',
    [
      { key: 'kill-to-start' },
      { key: 'kill-to-end' },
      { key: 'delete-word' },
      { key: 'clear-screen' },
    ],
  ],
  [
    'CSI arrows',
    '\x1b[A\x1b[B\x1b[C\x1b[D',
    [{ key: 'up' }, { key: 'down' }, { key: 'right' }, { key: 'left' }],
  ],
  ['SS3 arrows (application mode)', '\x1bOA\x1bOD', [{ key: 'up' }, { key: 'left' }]],
  [
    'Home/End',
    '\x1b[H\x1b[F\x1bOH\x1bOF',
    [{ key: 'home' }, { key: 'end' }, { key: 'home' }, { key: 'end' }],
  ],
  [
    'VT220 keypad',
    '\x1b[1~\x1b[4~\x1b[7~\x1b[8~\x1b[3~',
    [{ key: 'home' }, { key: 'end' }, { key: 'home' }, { key: 'end' }, { key: 'delete' }],
  ],
  ['modified arrow keeps its direction', '\x1b[1;5C', [{ key: 'right' }]],
  ['unknown CSI is dropped', 'a\x1b[2~b\x1b[15~', [{ text: 'ab' }]],
  ['Alt+key drops the ESC', '\x1bb', [{ text: 'b' }]],
  ['tab and other controls are dropped', 'a\tb\x00c\x1fd', [{ text: 'abcd' }]],
  ['C1 controls are dropped', 'a\u009bb', [{ text: 'ab' }]],
  ['malformed CSI drops only its prefix', '\x1b[12\x03', [{ key: 'interrupt' }]],
];

for (const [name, input, keys] of TABLE) {
  test(`keys: ${name}`, () => {
    assert.deepEqual(decode(input), keys);
  });
}

test('keys: an escape sequence split across chunks waits for its end', () => {
  assert.deepEqual(decode('\x1b', '[', 'A'), [{ key: 'up' }]);
  assert.deepEqual(decode('x\x1b[1;', '5D'), [{ text: 'x' }, { key: 'left' }]);
  assert.deepEqual(decode('\x1bO', 'B'), [{ key: 'down' }]);
});

test('keys: a UTF-8 character split across chunks is decoded whole', () => {
  const bytes = Buffer.from('✓', 'utf8');
  assert.deepEqual(decode(bytes.subarray(0, 1), bytes.subarray(1)), [{ text: '✓' }]);
});

test('keys: CR at the end of one chunk and LF at the start of the next is one Enter', () => {
  assert.deepEqual(decode('a\r', '\nb'), [{ text: 'a' }, { key: 'enter' }, { text: 'b' }]);
});

test('keys: an endless parameter run is cut at 32 bytes, never buffered without bound', () => {
  // ESC [ and the first 30 parameter bytes are dropped; what follows is ordinary text.
  const garbage = '\x1b[' + '1;'.repeat(40) + 'A' + 'ok';
  assert.deepEqual(decode(garbage), [{ text: '1;'.repeat(25) + 'Aok' }]);
});

/** Adjacent text keys merged, so that results of differently chunked input compare equal. */
function normalise(keys: Key[]): Key[] {
  const out: Key[] = [];
  for (const key of keys) {
    const last = out.at(-1);
    if ('text' in key && last !== undefined && 'text' in last)
      out[out.length - 1] = { text: last.text + key.text };
    else out.push({ ...key });
  }
  return out;
}

const terminalBytes = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '\x1b',
        '[',
        'O',
        '~',
        ';',
        '1',
        '3',
        'A',
        'D',
        '\r',
        '\n',
        '\x03',
        '\x7f',
        '✓',
      ),
      fc.string(),
      fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from(b).toString('latin1')),
    ),
    { maxLength: 30 },
  )
  .map((parts) => Buffer.from(parts.join(''), 'utf8'));

test('keys (property): any bytes decode without throwing, and text never holds a control character', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
      for (const key of decode(Buffer.from(bytes))) {
        if ('text' in key)
          assert.ok(!/[\u0000-\u001f\u007f-\u009f]/.test(key.text), JSON.stringify(key));
      }
    }),
    { numRuns: 2000 },
  );
});

test('keys (property): however the input is cut into chunks, the keys are the same', () => {
  fc.assert(
    fc.property(terminalBytes, fc.array(fc.nat(), { maxLength: 6 }), (bytes, cuts) => {
      const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
      const chunks = [0, ...points].map((start, i) =>
        bytes.subarray(start, [...points, bytes.length][i]),
      );
      assert.deepEqual(normalise(decode(...chunks)), normalise(decode(bytes)));
    }),
    { numRuns: 2000 },
  );
});
