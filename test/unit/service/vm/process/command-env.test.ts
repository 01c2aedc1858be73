import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandEnv, VM_PATH } from '../../../../../src/service/vm/process/command-env.js';

const HOME = { HOME: '/root', USER: 'root' };

test('a command env: HOME, USER, PATH, then the VM env, then the call env', () => {
  const cases: {
    vm: Record<string, string>;
    call?: Record<string, string>;
    env: Record<string, string>;
  }[] = [
    { vm: {}, env: { HOME: '/root', USER: 'root', PATH: VM_PATH } },
    {
      vm: { A: '1', EMPTY: '' },
      call: { EXECTL_REFLECTION_URL: 'http://127.0.0.1:7071/vm/x' },
      env: {
        HOME: '/root',
        USER: 'root',
        PATH: VM_PATH,
        A: '1',
        EMPTY: '',
        EXECTL_REFLECTION_URL: 'http://127.0.0.1:7071/vm/x',
      },
    },
    // --env may change the basics on purpose...
    {
      vm: { PATH: '/opt/bin', HOME: '/srv' },
      env: { HOME: '/srv', USER: 'root', PATH: '/opt/bin' },
    },
    // ...but not what the server hands each call.
    {
      vm: { EXECTL_REFLECTION_URL: 'forged' },
      call: { EXECTL_REFLECTION_URL: 'real' },
      env: { HOME: '/root', USER: 'root', PATH: VM_PATH, EXECTL_REFLECTION_URL: 'real' },
    },
  ];
  for (const { vm, call, env } of cases) assert.deepEqual(commandEnv(HOME, vm, call), env);
});

test('the exectl client comes last on a VM’s PATH, after the system’s folders', () => {
  assert.equal(
    VM_PATH,
    '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/exectl/bin',
  );
});
