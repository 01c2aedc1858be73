// The dashboard's live request log keeps the last requests of each key, and forgets the key
// heard from least recently once it keeps too many (a flood of one key moves nothing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  RequestHistory,
  ROWS_PER_ANSWER,
} from '../../../../src/service/dashboard/request-history.js';
import { newLogEntry, type RequestLogEntry } from '../../../../src/service/request-log.js';

function entryOf(fingerprint: string, path = 'whoami'): RequestLogEntry {
  return { ...newLogEntry('http', path), fingerprint, status: 200, durationMs: 1.23 };
}

test('rows come back oldest first, with an ISO time and no token', () => {
  const history = new RequestHistory();
  const log = history.tap(() => {});
  log('line', 'info', { entry: entryOf('SHA256:a', 'ls'), at: Date.UTC(2026, 10, 26, 1, 2, 3) });
  log('line', 'info', { entry: entryOf('SHA256:b'), at: Date.UTC(2026, 10, 26, 1, 2, 4) });
  log('line', 'info', { entry: entryOf('SHA256:a', 'new'), at: Date.UTC(2026, 10, 26, 1, 2, 5) });
  const rows = history.rowsOf(['SHA256:a', 'SHA256:b'], 0);
  assert.deepEqual(
    rows.map(({ request_id: _, ...row }) => row),
    [
      {
        seq: 1,
        time: '2026-11-26T01:02:03.000Z',
        via: 'http',
        key: 'SHA256:a',
        command: 'ls',
        status: 200,
        duration_ms: 1.2,
      },
      {
        seq: 2,
        time: '2026-11-26T01:02:04.000Z',
        via: 'http',
        key: 'SHA256:b',
        command: 'whoami',
        status: 200,
        duration_ms: 1.2,
      },
      {
        seq: 3,
        time: '2026-11-26T01:02:05.000Z',
        via: 'http',
        key: 'SHA256:a',
        command: 'new',
        status: 200,
        duration_ms: 1.2,
      },
    ],
  );
  assert.deepEqual(Object.keys(rows[0]!), [
    'seq',
    'time',
    'request_id',
    'via',
    'key',
    'command',
    'status',
    'duration_ms',
  ]);
  assert.deepEqual(
    history.rowsOf(['SHA256:a'], 1).map((r) => r.seq),
    [3],
  );
});

test('past 5000 keys the key heard from least recently goes, whatever floods came between', () => {
  const history = new RequestHistory();
  const log = history.tap(() => {});
  const keep = (fp: string) => log('line', 'info', { entry: entryOf(fp), at: 0 });
  keep('SHA256:old');
  for (let i = 0; i < 300; i++) keep('SHA256:flood'); // a flood keeps its last 200 only
  keep('SHA256:old'); // heard again: now more recent than the flood
  for (let i = 0; i < 4998; i++) keep(`SHA256:k${i}`); // 5000 keys in all
  assert.equal(history.rowsOf(['SHA256:flood'], 0).length, 200);
  keep('SHA256:new'); // one too many: the flood's key was heard from least recently
  assert.equal(history.rowsOf(['SHA256:flood'], 0).length, 0);
  assert.equal(history.rowsOf(['SHA256:old'], 0).length, 2);
  keep('SHA256:newer'); // then `old`
  assert.equal(history.rowsOf(['SHA256:old'], 0).length, 0);
  assert.equal(history.rowsOf(['SHA256:k0'], 0).length, 1);
});

test('requests before authentication are not kept', () => {
  const history = new RequestHistory();
  history.tap(() => {})('line', 'info', { entry: entryOf('-'), at: 0 });
  assert.deepEqual(history.rowsOf(['-'], 0), []);
});

test('an answer holds the newest 500 rows of all the keys asked for, oldest first', () => {
  const history = new RequestHistory();
  const log = history.tap(() => {});
  const keys = Array.from({ length: 10 }, (_, i) => `SHA256:key${i}`);
  // 10 keys × 200 rows kept: 2000 rows, where an account of many keys could have far more.
  for (let round = 0; round < 200; round++) {
    for (const key of keys) log('line', 'info', { entry: entryOf(key), at: round });
  }
  const rows = history.rowsOf(keys, 0);
  assert.equal(rows.length, ROWS_PER_ANSWER);
  assert.deepEqual([rows[0]!.seq, rows.at(-1)!.seq], [2000 - ROWS_PER_ANSWER + 1, 2000]);
  assert.equal(history.rowsOf(keys, 1990).length, 10);
});
