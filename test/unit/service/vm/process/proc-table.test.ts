// /proc/<pid>/stat lines: the command name inside them is chosen by the (untrusted) process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseProcStat } from '../../../../../src/service/vm/process/proc-table.js';

const TAIL = '0 -1 4194560 120 0 0 0 0 0 20 0 1 0 123 4 5';

test('parseProcStat reads pid, state, ppid, process group and session', () => {
  const cases: [string, ReturnType<typeof parseProcStat>][] = [
    [`42 (sleep) S 7 40 39 ${TAIL}`, { pid: 42, state: 'S', ppid: 7, pgrp: 40, session: 39 }],
    [`1 (init) S 0 1 1 ${TAIL}`, { pid: 1, state: 'S', ppid: 0, pgrp: 1, session: 1 }],
    // Names with spaces and parentheses: the fields start after the last ')'.
    [`9 (a b) c) Z 8 8 8 ${TAIL}`, { pid: 9, state: 'Z', ppid: 8, pgrp: 8, session: 8 }],
    [`10 ()) R 1 2 3 ${TAIL}`, { pid: 10, state: 'R', ppid: 1, pgrp: 2, session: 3 }],
    [`11 (x\ny) S 1 2 3\n`, { pid: 11, state: 'S', ppid: 1, pgrp: 2, session: 3 }],
    [`12 (sh) S 0 0 0 ${TAIL}`, { pid: 12, state: 'S', ppid: 0, pgrp: 0, session: 0 }],
  ];
  for (const [line, expected] of cases) assert.deepEqual(parseProcStat(line), expected, line);
});

test('parseProcStat refuses what is not a stat line', () => {
  for (const line of [
    '',
    'garbage',
    '42 sleep S 1 2 3',
    '(sleep) S 1 2 3',
    '0 (zero) S 1 2 3',
    '-1 (neg) S 1 2 3',
    '42 (sleep) S 1 2',
    '42 (sleep) 5 1 2 3',
    '42 (sleep) S one 2 3',
    '42 (sleep) S 1 -2 3',
    '4x2 (sleep) S 1 2 3',
  ]) {
    assert.equal(parseProcStat(line), undefined, JSON.stringify(line));
  }
});

test('any command name round-trips; the numbers are never taken from it', () => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 16, unit: 'binary' }),
      fc.integer({ min: 1, max: 4_194_304 }),
      fc.constantFrom('R', 'S', 'D', 'Z', 'T', 'I'),
      fc.array(fc.nat({ max: 4_194_304 }), { minLength: 3, maxLength: 3 }),
      (comm, pid, state, [ppid, pgrp, session]) => {
        const line = `${pid} (${comm}) ${state} ${ppid} ${pgrp} ${session} ${TAIL}\n`;
        assert.deepEqual(parseProcStat(line), { pid, state, ppid, pgrp, session });
      },
    ),
  );
});

test('arbitrary text never throws, and what parses has a positive pid', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200, unit: 'binary' }), (text) => {
      const parsed = parseProcStat(text);
      if (parsed !== undefined) assert.ok(Number.isSafeInteger(parsed.pid) && parsed.pid > 0);
    }),
  );
});
