// The pty emulation's newline translation, across chunk boundaries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CrlfTranslator } from '../../../../src/service/ssh/crlf.js';

const translate = (...chunks: string[]): string => {
  const t = new CrlfTranslator();
  return chunks.map((c) => t.translate(Buffer.from(c, 'latin1')).toString('latin1')).join('');
};

const TABLE: [name: string, chunks: string[], out: string][] = [
  ['no newline', ['abc'], 'abc'],
  ['bare LF', ['a\nb\n'], 'a\r\nb\r\n'],
  ['CRLF kept', ['a\r\nb'], 'a\r\nb'],
  ['LF LF', ['\n\n'], '\r\n\r\n'],
  ['CR at the end of a chunk, LF next', ['a\r', '\nb'], 'a\r\nb'],
  ['LF first in a later chunk', ['a', '\n'], 'a\r\n'],
  ['lone CR kept', ['a\rb'], 'a\rb'],
  ['empty chunk between', ['a\r', '', '\n'], 'a\r\n'],
];

for (const [name, chunks, out] of TABLE) {
  test(`crlf: ${name}`, () => assert.equal(translate(...chunks), out));
}

test('crlf (property): however it is chunked, every LF not after a CR gets one, nothing else', () => {
  const chunk = fc.string({ unit: fc.constantFrom('a', '\r', '\n') });
  fc.assert(
    fc.property(fc.array(chunk, { maxLength: 8 }), (chunks) => {
      const expected = chunks.join('').replace(/(?<!\r)\n/g, '\r\n');
      assert.equal(translate(...chunks), expected);
    }),
    { numRuns: 2000 },
  );
});
