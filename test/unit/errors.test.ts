import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERROR_CATALOGUE, ExectlError, exitCodeMeanings, publicFailure } from '../../src/errors.js';

test('publicFailure shows an expected failure as it is, its logDetail for the log only', () => {
  const err = new ExectlError('forbidden', 'not allowed: ls', { logDetail: 'cmds: ["whoami"]' });
  const { error, detail } = publicFailure(err);
  assert.equal(error, err);
  assert.equal(detail, 'cmds: ["whoami"]');
});

const BUGS: readonly [string, unknown, RegExp][] = [
  [
    'a TypeError',
    new TypeError('cannot read /secret/path'),
    /^TypeError: cannot read \/secret\/path\n/,
  ],
  [
    'an ExectlError marked internal',
    new ExectlError('internal', 'db at /x broke'),
    /db at \/x broke/,
  ],
  ['a thrown string', 'boom', /^boom$/],
  ['undefined', undefined, /^undefined$/],
];

for (const [what, thrown, detail] of BUGS) {
  test(`publicFailure shows ${what} only as "internal error", the cause kept for the log`, () => {
    const failure = publicFailure(thrown);
    assert.equal(failure.error.code, 'internal');
    assert.equal(failure.error.message, 'internal error');
    assert.equal(failure.error.status, 500);
    assert.equal(failure.error.exitCode, 9);
    assert.equal(failure.error.hint, undefined);
    assert.match(failure.detail ?? '', detail);
  });
}

test('exitCodeMeanings names each exit code 1-9 once, in order, with the catalogue status', () => {
  const meanings = exitCodeMeanings();
  assert.deepEqual(
    meanings.map((m) => Number(m.split(' ')[0])),
    [1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
  assert.ok(meanings.includes(`6 rate limited (${ERROR_CATALOGUE.rate_limited.status})`));
  assert.ok(meanings.every((m) => !m.includes('{status}')));
});

const FULL: readonly [string, Error & { code: string }][] = [
  [
    'SQLite (SQLITE_FULL)',
    Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }),
  ],
  [
    'a file write (ENOSPC)',
    Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }),
  ],
];

for (const [what, thrown] of FULL) {
  test(`publicFailure shows a full disk from ${what} as disk_full (507), never "internal error"`, () => {
    const failure = publicFailure(thrown);
    assert.deepEqual(
      [failure.error.code, failure.error.status, failure.error.exitCode, failure.error.message],
      ['disk_full', 507, 9, "the server's disk is full"],
    );
    assert.equal(
      failure.error.hint,
      'ask the operator to free space in its data folder, then run the command again',
    );
    assert.match(failure.detail ?? '', new RegExp(thrown.message));
  });
}
