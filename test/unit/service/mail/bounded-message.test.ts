// The SMTP listener's reading of a message (SPEC §4b): CRLF becomes LF wherever the chunks
// split it, a bare CR stays, and past the limit nothing is kept, whatever follows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { readBoundedMessage } from '../../../../src/service/mail/bounded-message.js';

const read = (chunks: string[], limit = 1000) =>
  readBoundedMessage(Readable.from(chunks.map((c) => Buffer.from(c, 'latin1'))), limit);

test('CRLF becomes LF, across chunk boundaries too; a bare CR stays', async () => {
  const cases: [chunks: string[], text: string][] = [
    [['a\r\nb\r\n'], 'a\nb\n'],
    [['a\r', '\nb'], 'a\nb'],
    [['a\r', 'b\r'], 'a\rb\r'],
    [['a\r', '\r\n'], 'a\r\n'],
    [['\r'], '\r'],
    [[], ''],
  ];
  for (const [chunks, text] of cases) {
    assert.deepEqual(await read(chunks), { exceeded: false, bytes: Buffer.from(text, 'latin1') });
  }
});

test('the limit counts bytes as sent: at it kept, one past it exceeded', async () => {
  assert.equal((await read(['x'.repeat(10)], 10)).exceeded, false);
  assert.deepEqual(await read(['x'.repeat(6), 'x'.repeat(5), 'y'], 10), { exceeded: true });
});

test('property: any split of any text reads as the text with CRLF turned into LF', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom('a', '\r', '\n', '\r\n', 'é'), { maxLength: 60 }),
      fc.array(fc.nat(60), { maxLength: 6 }),
      async (pieces, cuts) => {
        const text = pieces.join('');
        const points = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort(
          (a, b) => a - b,
        );
        const chunks = [0, ...points].map((p, i, all) => text.slice(p, all[i + 1] ?? text.length));
        const answer = await read(chunks, 10_000);
        assert.deepEqual(answer, {
          exceeded: false,
          bytes: Buffer.from(text.replace(/\r\n/g, '\n'), 'latin1'),
        });
      },
    ),
  );
});
