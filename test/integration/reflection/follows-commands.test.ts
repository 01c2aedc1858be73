// What a VM reads about itself follows the commands run through POST /exec, and a VM's secret
// shows that VM only: another VM's, another account's, or a deleted VM's secret is no way in.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { GeneratedKey } from '../../helpers/keys.js';
import { startReflectionHarness, type ReflectionHarness } from './harness.js';

let h: ReflectionHarness;
let bob: GeneratedKey;

before(async () => {
  // Its targets are on 127.0.0.1, a private address (SPEC §6; private-targets.test.ts).
  h = await startReflectionHarness({ allowPrivateTargets: true });
  bob = await h.svc.addAccount('bob@example.com');
  await h.exec('new --name vm1');
  await h.exec('new --name vm2 --tag two');
  await h.exec('new --name bobs-vm --comment mine', bob);
});
after(() => h.stop());

test('/tags, /comment and /default_port follow tag, comment and share port', async () => {
  assert.deepEqual(await h.reflect('vm1', '/tags'), { tags: [] });
  await h.exec('tag vm1 prod eu');
  assert.deepEqual(await h.reflect('vm1', '/tags'), { tags: ['eu', 'prod'] });
  await h.exec('tag -d vm1 eu');
  assert.deepEqual(await h.reflect('vm1', '/tags'), { tags: ['prod'] });

  assert.deepEqual(await h.reflect('vm1', '/comment'), { comment: '' });
  await h.exec("comment vm1 'serves the API'");
  assert.deepEqual(await h.reflect('vm1', '/comment'), { comment: 'serves the API' });
  await h.exec("comment vm1 ''");
  assert.deepEqual(await h.reflect('vm1', '/comment'), { comment: '' });

  assert.deepEqual(await h.reflect('vm1', '/default_port'), { default_port: 8000 });
  await h.exec('share port vm1 3000');
  assert.deepEqual(await h.reflect('vm1', '/default_port'), { default_port: 3000 });
});

test('each VM sees only itself; another account sees its own owner', async () => {
  const vm2 = (await h.reflect('vm2', '/')) as { name: string };
  assert.equal(vm2.name, 'vm2');
  assert.deepEqual(await h.reflect('vm2', '/tags'), { tags: ['two'] });
  assert.deepEqual(await h.reflect('bobs-vm', '/email'), { email: 'bob@example.com' });
  assert.deepEqual(await h.reflect('bobs-vm', '/comment'), { comment: 'mine' });
  const secrets = ['vm1', 'vm2', 'bobs-vm'].map((vm) => h.reflectionUrl(vm));
  assert.equal(new Set(secrets).size, 3);
  // bob's integrations are his own: ada's VMs never list them.
  await h.exec(
    'integrations add llm --name bobs-llm --target http://127.0.0.1:9 --attach auto:all',
    bob,
  );
  const names = async (vm: string) =>
    (
      (await h.reflect(vm, '/integrations')) as { integrations: { name: string }[] }
    ).integrations.map((i) => i.name);
  assert.deepEqual(await names('vm1'), ['reflection']);
  assert.deepEqual(await names('bobs-vm'), ['bobs-llm', 'reflection']);
});

test('a rename changes the secret (SPEC §5) and the name; a removed VM secret is a 404', async () => {
  const before = h.reflectionUrl('vm2');
  await h.exec('rename vm2 vm-two');
  const renamed = h.reflectionUrl('vm-two');
  assert.notEqual(renamed, before);
  assert.equal((await h.http(`${before}/`)).status, 404);
  assert.equal(JSON.parse((await h.http(`${renamed}/`)).text).name, 'vm-two');
  await h.exec('rm vm-two');
  for (const path of ['/', '/email']) {
    const r = await h.http(`${renamed}${path}`);
    assert.equal(r.status, 404);
    assert.deepEqual(JSON.parse(r.text), { error: 'not found' });
  }
});
