// Tables and help fit the terminal (issue 28: at 80 columns `ls -l` and `help` wrapped
// mid-word): at 40, 80 and 120 columns no line is longer than the width, cells are cut with
// `…` rather than wrapped, words are never split; without a width (piped) nothing is cut.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readableText, textViewFor } from '../../../src/text-views/index.js';
import { renderHelpText, type CommandListing } from '../../../src/text-views/help.js';
import { textTable } from '../../../src/text-views/table.js';
import {
  displayWidth,
  fitColumns,
  truncateToWidth,
  wrapWords,
} from '../../../src/text-views/width.js';

const WIDTHS = [40, 80, 120] as const;

/** [what, text, terminal columns]. */
const DISPLAY_WIDTHS: readonly [string, string, number][] = [
  ['ASCII', 'web-1', 5],
  ['CJK, two columns each', '日本語', 6],
  ['an emoji VM prefix', '🦦 web', 6],
  ['letters with combining accents', 'e\u0301te\u0301', 3],
  ['a heart with the emoji selector', '\u2764\ufe0f', 2],
  ['a heart without it (text style)', '\u2764', 1],
  ['a family joined by ZWJ', '👩\u200d👩\u200d👧', 2],
  ['fullwidth letters', 'ＡＢ', 4],
];

for (const [what, text, columns] of DISPLAY_WIDTHS) {
  test(`displayWidth: ${what}`, () => assert.equal(displayWidth(text), columns));
}

test('truncateToWidth cuts whole graphemes and ends in …', () => {
  assert.equal(truncateToWidth('hello world', 20), 'hello world');
  assert.equal(truncateToWidth('hello world', 6), 'hello…');
  // A wide character that would straddle the edge is left out whole.
  assert.equal(truncateToWidth('日本語です', 6), '日本…');
  assert.equal(displayWidth(truncateToWidth('日本語です', 6)), 5);
  assert.equal(truncateToWidth('🦦🦦🦦', 4), '🦦…');
  assert.equal(truncateToWidth('e\u0301e\u0301e\u0301', 2), 'e\u0301…');
});

test('fitColumns cuts the widest columns first and leaves the narrow ones whole', () => {
  assert.deepEqual(fitColumns([5, 10, 30], 2, undefined), [5, 10, 30]);
  assert.deepEqual(fitColumns([5, 10, 30], 2, 100), [5, 10, 30]);
  assert.deepEqual(fitColumns([5, 10, 30], 2, 30), [5, 10, 11]);
  assert.deepEqual(fitColumns([5, 40, 30], 2, 40), [5, 16, 15]);
});

const LONG = 'a-comment-that-goes-on-and-on-without-any-space-at-all-for-a-long-while';
const VMS = {
  vms: [
    {
      vm_name: 'web',
      emoji: '🦦',
      status: 'running',
      tags: ['blue', 'prod', 'customer-facing'],
      comment: `the public site ${LONG}`,
      default_port: 8080,
      https_url: 'https://web.some-long-domain.example.com:7070/',
      ssh_dest: 'vm+web@ssh.some-long-domain.example.com',
      ssh_host: 'ssh.some-long-domain.example.com',
      ssh_port: 7022,
      ssh_user: 'vm+web',
      created_at: '2026-01-01T00:00:00Z',
    },
    {
      vm_name: 'db-with-a-rather-long-name',
      emoji: '🐙',
      status: 'stopped',
      tags: [],
      comment: '日本語のコメントがとても長いのでここで切られるはずです',
      default_port: 5432,
      https_url: 'https://db-with-a-rather-long-name.some-long-domain.example.com/',
      ssh_dest: null,
      ssh_host: null,
      ssh_port: null,
      ssh_user: null,
      created_at: '2026-01-02T00:00:00Z',
    },
    {
      vm_name: 'ctl',
      emoji: '🦊',
      status: 'running',
      tags: ['x'],
      comment: 'bell \u0007 and escape \u001b[31m in a comment',
      default_port: 80,
      https_url: 'https://ctl.example',
      ssh_dest: null,
      ssh_host: null,
      ssh_port: null,
      ssh_user: null,
      created_at: '2026-01-03T00:00:00Z',
    },
  ],
};

/** [what, the text at a width (undefined: piped)]. */
const TABLES: readonly [string, (width: number | undefined) => string][] = [
  ['ls -l', (w) => readableText(VMS, textViewFor('ls'), new Set(['long']), w)],
  ['ls', (w) => readableText(VMS, textViewFor('ls'), new Set(), w)],
  [
    'a generic list (no view)',
    (w) =>
      readableText(
        { things: VMS.vms.map((vm) => ({ ...vm, more: LONG })) },
        undefined,
        new Set(),
        w,
      ),
  ],
  [
    'integrations list',
    (w) =>
      readableText(
        [
          {
            name: 'openai',
            type: 'llm',
            comment: LONG,
            config: { target: `https://api.openai.com/${LONG}`, header_names: [] },
            attachments: ['tag:ai', 'vm:web', 'vm:db-with-a-rather-long-name'],
          },
        ],
        textViewFor('integrations list'),
        new Set(),
        w,
      ),
  ],
  ['a one-column table', (w) => textTable(['comment'], [[LONG], ['short']], 'none', w)],
];

for (const [what, render] of TABLES) {
  for (const width of WIDTHS) {
    test(`${what} at ${width} columns: no line is longer, cut cells end in …`, () => {
      const text = render(width);
      for (const line of text.split('\n')) {
        assert.ok(displayWidth(line) <= width, `${displayWidth(line)} > ${width}: ${line}`);
      }
      const piped = render(undefined);
      const widest = Math.max(...piped.split('\n').map(displayWidth));
      // Cut exactly when the whole table would not fit.
      assert.equal(text.includes('…'), widest > width, text);
      if (widest <= width) assert.equal(text, piped);
      // The header row keeps its first column's name.
      assert.match(text, /^\S/);
    });
  }
  test(`${what} piped: nothing cut`, () => {
    assert.ok(!render(undefined).includes('…'));
  });
}

test('control characters are escaped before measuring, so rows stay aligned', () => {
  assert.equal(
    textTable(
      ['a', 'b'],
      [
        ['x\u001by', '1'],
        ['long-cell', '2'],
      ],
      '',
      200,
    ),
    'A          B\nx\\u001by   1\nlong-cell  2\n',
  );
});

const LISTING: CommandListing = {
  commands: [
    { name: 'help', usage: 'help [command...]', description: 'Show commands, or the help of one' },
    {
      name: 'ls',
      usage: 'ls [-l] [pattern]',
      description:
        'List your VMs and the ones shared with you; a pattern is a glob over names and tags',
    },
    {
      name: 'integrations add',
      usage:
        'integrations add <type> --name N [--target URL] [--header K:V]... [--comment C] [--attach SPEC]... [--fields LIST]',
      description: 'Add an integration: requests from attached VMs are forwarded with its headers',
    },
  ],
};

for (const width of WIDTHS) {
  test(`help at ${width} columns: no line longer, no word split`, () => {
    const text = renderHelpText(LISTING, width);
    const words = new Set(
      LISTING.commands.flatMap((c) => [...c.usage.split(' '), ...c.description.split(' ')]),
    );
    for (const line of text.split('\n')) {
      assert.ok(displayWidth(line) <= width, `${displayWidth(line)} > ${width}: ${line}`);
      for (const word of line.split(' ').filter((w) => w !== '')) {
        assert.ok(words.has(word) || word.endsWith('…'), `"${word}" is not a whole word`);
      }
    }
    // Nothing is lost: every word is there (none is longer than 40 columns).
    assert.deepEqual(new Set(text.split(/\s+/).filter((w) => w !== '')), words);
  });
}

test('help piped: one line per command, as before', () => {
  const text = renderHelpText(LISTING, undefined);
  assert.equal(text.split('\n').length, LISTING.commands.length + 1);
});

test('wrapWords breaks at spaces and cuts only a word longer than a line', () => {
  assert.deepEqual(wrapWords('one two three', 7), ['one two', 'three']);
  assert.deepEqual(wrapWords('one two three', undefined), ['one two three']);
  assert.deepEqual(wrapWords(`a ${LONG}`, 10), ['a', 'a-comment…']);
});
