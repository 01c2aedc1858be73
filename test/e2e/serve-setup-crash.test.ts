// SPEC §4: a crash of the server (`kill -9`) during a VM's setup script leaves no VM stuck in
// `creating`: the next start marks the unfinished creation `failed`, with the reason in `stat`.
// Real machine VMs when run as root (as CI does), the built `exectl serve`.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateKey, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { hostPidsWith, uniqueMarker } from '../integration/vm/fixture.js';
import { assertBuilt } from './harness.js';
import { TEST_FLAGS, curlExec, recipeToken, startServe, stopAll } from './serve-server.js';

let dir: TempDir;
let key: GeneratedKey;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-setup-crash');
  key = await generateKey(dir.path, 'ed25519', { name: 'me' });
});
after(async () => {
  await stopAll();
  await dir.remove();
});

test('kill -9 of the server during a setup script: after the restart no VM is creating', async () => {
  // The test flags, but real VMs: machines when run as root.
  const cut = TEST_FLAGS.indexOf('--runtime');
  const flags = [
    '--data',
    dir.join('data'),
    ...TEST_FLAGS.slice(0, cut),
    ...TEST_FLAGS.slice(cut + 2),
  ];
  flags.push('--runtime', 'bwrap', '--owner', 'me@example.com');
  const first = await startServe([...flags, '--authorized-key', key.pubPath], { home: dir.path });
  const token = await recipeToken(key, ['new', 'ls', 'stat']);
  const marker = uniqueMarker();
  // Not awaited: the server dies while `new` waits for the script.
  const pending = curlExec(first.url, token, `new --name cut --setup-script 'sleep ${marker}'`);
  pending.catch(() => {});
  for (let i = 0; i < 400 && (await hostPidsWith(`sleep ${marker}`)).length === 0; i += 1) {
    await sleep(50);
  }
  assert.ok((await hostPidsWith(`sleep ${marker}`)).length > 0, 'the setup script runs');
  assert.equal((await first.stop('SIGKILL')).signal, 'SIGKILL');

  const second = await startServe(flags, { home: dir.path });
  const ls = await curlExec(second.url, token, 'ls');
  assert.deepEqual(
    (JSON.parse(ls.body) as { vms: { vm_name: string; status: string }[] }).vms.map((vm) => [
      vm.vm_name,
      vm.status,
    ]),
    [['cut', 'failed']],
  );
  const stat = JSON.parse((await curlExec(second.url, token, 'stat cut')).body) as {
    setup: unknown;
  };
  assert.deepEqual(stat.setup, {
    status: 'failed',
    last_line: 'the server stopped before the VM was fully created',
  });
  await second.waitForLine(/vm "cut": the server stopped before the VM was fully created/);
  assert.equal((await second.stop('SIGTERM')).code, 0);
});
