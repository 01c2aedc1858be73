import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseExtents } from '../../../../../src/service/vm/disk/image-template.js';

describe('parseExtents: the ranges perl reports of a template image', () => {
  const cases: { name: string; text: string; want: { offset: number; length: number }[] | null }[] =
    [
      { name: 'nothing written', text: '', want: [] },
      {
        name: 'ranges in order, with the final newline',
        text: '0 16384\n77824 4096\n8589996032 4096\n',
        want: [
          { offset: 0, length: 16384 },
          { offset: 77824, length: 4096 },
          { offset: 8589996032, length: 4096 },
        ],
      },
      // A file system without SEEK_DATA reports the whole file as data.
      { name: 'more than 64 MiB of data: no template', text: `0 ${10 * 2 ** 30}\n`, want: null },
      {
        name: 'exactly 64 MiB',
        text: `0 ${64 * 2 ** 20}\n`,
        want: [{ offset: 0, length: 2 ** 26 }],
      },
    ];
  for (const { name, text, want } of cases) {
    test(name, () => assert.deepEqual(parseExtents(text), want));
  }

  for (const line of ['0', 'x 4096', '0 0', '-1 4096', '0 -4096', '0 1.5']) {
    test(`refuses the line ${JSON.stringify(line)}`, () => {
      assert.throws(() => parseExtents(`${line}\n`), {
        message: `unexpected extent line: ${line}`,
      });
    });
  }
});
