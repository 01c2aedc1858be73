// Which `env` requests a VM's SSH session takes (SPEC §6a: LANG, LC_* and TERM only).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sessionEnv } from '../../../../../src/service/ssh/vm-sessions/session-env.js';

const cases: [name: string, value: string, taken: boolean][] = [
  ['LANG', 'C.UTF-8', true],
  ['LC_ALL', 'C', true],
  ['LC_TIME', 'de_DE.UTF-8', true],
  ['TERM', 'xterm-256color', true],
  ['LD_PRELOAD', '/tmp/x.so', false],
  ['PATH', '/tmp', false],
  ['BASH_ENV', '/tmp/x', false],
  ['LC_', 'C', false],
  ['lang', 'C', false],
  ['LANG', 'x'.repeat(257), false],
  ['LANG', 'a\0b', false],
];

for (const [name, value, taken] of cases) {
  test(`env ${JSON.stringify(name)}=${JSON.stringify(value.slice(0, 20))}: ${taken ? 'taken' : 'refused'}`, () => {
    const env = sessionEnv();
    assert.equal(env.take(name, value), taken);
    assert.deepEqual(env.values(), taken ? { [name]: value } : {});
  });
}

test('at most 20 variables, a name already taken may change', () => {
  const env = sessionEnv();
  for (let i = 0; i < 20; i++)
    assert.equal(env.take(`LC_X${String.fromCharCode(65 + i)}`, 'C'), true);
  assert.equal(env.take('LANG', 'C'), false);
  assert.equal(env.take('LC_XA', 'POSIX'), true);
  assert.equal(env.values().LC_XA, 'POSIX');
});
