// The pieces of an interactive VM shell that read client input (pty sizes, TERM) or text
// written from inside a VM (the shell's report), and the command that starts the shell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  parseShellReport,
  ptySize,
  shellCommand,
  sttySizeCommand,
  termName,
  type ShellTools,
} from '../../../../../src/service/vm/process/shell-command.js';
import { lexCommandLine } from '../../../../../src/shell-words.js';
import { BranchShare } from '../../../../helpers/branch-share.js';

const TOOLS: ShellTools = { script: '/usr/bin/script', stty: '/bin/stty', tty: '/usr/bin/tty' };

test('ptySize takes whole sizes from 1 to 65535 only', () => {
  const cases: [number, number, ReturnType<typeof ptySize>][] = [
    [80, 24, { cols: 80, rows: 24 }],
    [1, 1, { cols: 1, rows: 1 }],
    [65535, 65535, { cols: 65535, rows: 65535 }],
    [0, 0, undefined],
    [0, 24, undefined],
    [80, 0, undefined],
    [65536, 24, undefined],
    [-80, 24, undefined],
    [80.5, 24, undefined],
    [Number.NaN, 24, undefined],
    [Number.POSITIVE_INFINITY, 24, undefined],
  ];
  for (const [cols, rows, expected] of cases) {
    assert.deepEqual(ptySize(cols, rows), expected, `${cols}x${rows}`);
  }
});

test('termName keeps plain terminal names and says dumb for anything else', () => {
  const cases: [string, string][] = [
    ['xterm-256color', 'xterm-256color'],
    ['vt100', 'vt100'],
    ['screen.xterm-256color', 'screen.xterm-256color'],
    ['rxvt-unicode+256', 'rxvt-unicode+256'],
    ['', 'dumb'],
    ['-x', 'dumb'],
    ['xterm color', 'dumb'],
    ['xterm\0', 'dumb'],
    ['x'.repeat(65), 'dumb'],
    ['$(reboot)', 'dumb'],
  ];
  for (const [term, expected] of cases) assert.equal(termName(term), expected, term);
});

test('parseShellReport reads `<pid> /dev/pts/<n>` once its line is complete', () => {
  const cases: [string, ReturnType<typeof parseShellReport>][] = [
    ['7 /dev/pts/0\n', { pid: 7, tty: '/dev/pts/0' }],
    ['31337 /dev/pts/12\nmore', { pid: 31337, tty: '/dev/pts/12' }],
    ['7 /dev/pts/0', undefined],
    ['7 not a tty\n', undefined],
    ['0 /dev/pts/0\n', undefined],
    ['7 /dev/pts/0/../../sda\n', undefined],
    ['7 /dev/tty\n', undefined],
    [' 7 /dev/pts/0\n', undefined],
    ['', undefined],
  ];
  for (const [text, expected] of cases) {
    assert.deepEqual(parseShellReport(text), expected, JSON.stringify(text));
  }
});

const shellReportLike = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.integer({ min: 1, max: 9_999_999_999 }),
        fc.nat(999_999_999),
        fc.string({ unit: 'binary', maxLength: 20 }),
      )
      .map(([pid, pts, tail]) => `${pid} /dev/pts/${pts}\n${tail}`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.integer({ min: -5, max: 99_999_999_999 }),
        fc.constantFrom(' /dev/pts/', ' /dev/tty', '/dev/pts/'),
        fc.string({ maxLength: 12 }),
      )
      .map(([pid, path, rest]) => `${pid}${path}${rest}`),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary' }) },
);

test('parseShellReport never throws, and what it returns is a pts path and a positive pid', (t) => {
  const share = new BranchShare();
  fc.assert(
    // Reports made on purpose (one with a tail, as the shell's output follows), their near
    // misses, and any text: random text alone would almost never be a report.
    fc.property(shellReportLike, (text) => {
      const report = parseShellReport(text);
      if (report === undefined) return share.refused();
      share.accepted();
      assert.match(report.tty, /^\/dev\/pts\/\d+$/);
      assert.ok(Number.isSafeInteger(report.pid) && report.pid > 0);
    }),
  );
  share.assertFloor((message) => t.diagnostic(message));
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 2 ** 31 }), fc.nat(999_999_999), (pid, n) => {
      assert.deepEqual(parseShellReport(`${pid} /dev/pts/${n}\n`), {
        pid,
        tty: `/dev/pts/${n}`,
      });
    }),
  );
});

test('shellCommand runs script on a prologue that sizes the pty, reports, and starts the shell', () => {
  const words = lexCommandLine(shellCommand(TOOLS, { cols: 91, rows: 27, term: 'xterm' }));
  assert.deepEqual(words, [
    'exec',
    '/usr/bin/script',
    '-qec',
    '/bin/stty cols 91 rows 27; ' +
      `printf '%s %s\\n' "$$" "$(/usr/bin/tty)" >&3; exec 3>&-; ` +
      'if [ -x /bin/bash ]; then SHELL=/bin/bash; fi; export SHELL; exec "$SHELL" -i',
    '/dev/null',
  ]);
  // A client that did not know its size: the kernel's default stays.
  const unsized = lexCommandLine(shellCommand(TOOLS, { cols: 0, rows: 0, term: 'xterm' }));
  assert.equal(unsized[3]!.startsWith('printf '), true);
});

test('sttySizeCommand names the terminal only when resizing another one', () => {
  assert.equal(
    sttySizeCommand(TOOLS, undefined, { cols: 80, rows: 24 }),
    '/bin/stty cols 80 rows 24',
  );
  assert.equal(
    sttySizeCommand(TOOLS, '/dev/pts/3', { cols: 132, rows: 43 }),
    '/bin/stty -F /dev/pts/3 cols 132 rows 43',
  );
});
