import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LogLevel } from '../../../src/service/config.js';
import {
  logRequest,
  newLogEntry,
  newRequestId,
  type RequestLogEntry,
} from '../../../src/service/request-log.js';

function capture() {
  const lines: [string, LogLevel | undefined][] = [];
  return { lines, log: (line: string, level?: LogLevel) => lines.push([line, level]) };
}

test('one line per request: time, id, via, key, command path, status, duration', () => {
  const { lines, log } = capture();
  const entry = { ...newLogEntry('http'), requestId: 'abc', fingerprint: 'SHA256:k' };
  logRequest(log, { ...entry, path: 'ssh-key list', status: 200, durationMs: 1.26 }, new Date(0));
  assert.deepEqual(lines, [
    [
      '1970-01-01T00:00:00.000Z req=abc via=http key=SHA256:k cmd="ssh-key list" status=200 ms=1.3',
      'info',
    ],
  ]);
});

test('a 500 is logged at level error with its detail; other statuses at info', () => {
  const { lines, log } = capture();
  const entry = { ...newLogEntry('http', 'whoami'), requestId: 'r' };
  logRequest(log, { ...entry, status: 500, detail: 'TypeError: boom' }, new Date(0));
  logRequest(log, { ...entry, status: 404 }, new Date(0));
  logRequest(log, { ...entry, status: 401, detail: 'bad namespace' }, new Date(0));
  assert.deepEqual(
    lines.map(([line, level]) => [line.split(' ').slice(5).join(' '), level]),
    [
      ['status=500 ms=0.0 error="TypeError: boom"', 'error'],
      ['status=404 ms=0.0', 'info'],
      ['status=401 ms=0.0 error="bad namespace"', 'info'],
    ],
  );
});

test('routine requests: debug level, with their Host (JSON-quoted, cut at 200); errors stay errors', () => {
  const { lines, log } = capture();
  const entry = { ...newLogEntry('http', 'GET /healthz'), requestId: 'r' };
  const cases: [Partial<RequestLogEntry>, string, LogLevel][] = [
    [{ status: 200 }, 'host="h:1" status=200 ms=0.0', 'debug'],
    [{ status: 503 }, 'host="h:1" status=503 ms=0.0', 'debug'],
    [{ status: 500, detail: 'boom' }, 'host="h:1" status=500 ms=0.0 error="boom"', 'error'],
    [
      { status: 400, routine: { host: `\u001b[31m${'x'.repeat(300)}` } },
      `host="\\u001b[31m${'x'.repeat(195)}" status=400 ms=0.0`,
      'debug',
    ],
  ];
  for (const [fields] of cases) {
    logRequest(log, { ...entry, routine: { host: 'h:1' }, ...fields }, new Date(0));
  }
  assert.deepEqual(
    lines.map(([line, level]) => [line.split(' ').slice(6).join(' '), level]),
    cases.map(([, rest, level]) => [rest, level]),
  );
});

test('request ids are unique and short', () => {
  const ids = new Set(Array.from({ length: 10_000 }, newRequestId));
  assert.equal(ids.size, 10_000);
  for (const id of [...ids].slice(0, 5)) assert.match(id, /^[0-9a-f]{16}$/);
});
