// Which VMs the reflection interface is open to, and which fields: the reflection
// integration's attachments (auto:all, tag:, vm:) and its field opt-in, changed by commands.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startReflectionHarness, type ReflectionHarness } from './harness.js';

let h: ReflectionHarness;

const ALL = ['/email', '/integrations', '/tags', '/comment', '/default_port'];
const DETACHED = { error: 'the reflection integration is not attached to this vm' };

before(async () => {
  // Its targets are on 127.0.0.1, a private address (SPEC §6; private-targets.test.ts).
  h = await startReflectionHarness({ allowPrivateTargets: true });
  await h.exec('new --name tagged --tag ci');
  await h.exec('new --name plain');
});
after(() => h.stop());

async function status(vm: string, path: string) {
  const r = await h.http(`${h.reflectionUrl(vm)}${path}`);
  return { status: r.status, body: JSON.parse(r.text) as unknown };
}

const pathsOf = async (vm: string) =>
  ((await h.reflect(vm, '/')) as { paths: { path: string }[] }).paths.map((p) => p.path);

test('a reflection integration with fewer fields: the index lists them, the others are 403', async () => {
  assert.deepEqual(await pathsOf('plain'), ALL);
  // The default reflection integration is replaced by one opening two fields.
  await h.exec('integrations remove reflection');
  await h.exec(
    'integrations add reflection --name reflection --fields tags,email --attach auto:all',
  );
  assert.deepEqual(await pathsOf('plain'), ['/email', '/tags']);
  assert.deepEqual(await h.reflect('plain', '/email'), { email: 'owner@example.com' });
  assert.deepEqual(await h.reflect('plain', '/tags'), { tags: [] });
  for (const field of ['comment', 'default_port', 'integrations']) {
    assert.deepEqual(await status('plain', `/${field}`), {
      status: 403,
      body: { error: `reflection path /${field} is not enabled for this vm` },
    });
  }
  // An unknown path is still unknown.
  assert.equal((await status('plain', '/secrets')).status, 404);
});

test('no reflection integration attached: 403 on every path, the index included', async () => {
  await h.exec('integrations detach reflection auto:all');
  for (const path of ['', '/', ...ALL, '/nope']) {
    assert.deepEqual(await status('plain', path), { status: 403, body: DETACHED }, path);
  }
  // Other integrations do not open the reflection interface.
  await h.exec(
    'integrations add http-proxy --name web --target http://127.0.0.1:9 --attach auto:all',
  );
  assert.deepEqual(await status('plain', '/'), { status: 403, body: DETACHED });
  await h.exec('integrations remove web');
});

test('tag:<tag> selects exactly the VMs with the tag, now and later', async () => {
  await h.exec('integrations attach reflection tag:ci');
  assert.deepEqual(await pathsOf('tagged'), ['/email', '/tags']);
  assert.deepEqual(await status('plain', '/'), { status: 403, body: DETACHED });

  await h.exec('tag plain ci');
  assert.deepEqual(await pathsOf('plain'), ['/email', '/tags']);
  await h.exec('tag -d tagged ci');
  assert.deepEqual(await status('tagged', '/'), { status: 403, body: DETACHED });
  await h.exec('integrations detach reflection tag:ci');
  assert.deepEqual(await status('plain', '/'), { status: 403, body: DETACHED });
});

test('vm:<name> selects one VM and follows its rename; two reflection integrations add up', async () => {
  await h.exec('integrations attach reflection vm:tagged');
  assert.deepEqual(await pathsOf('tagged'), ['/email', '/tags']);
  assert.deepEqual(await status('plain', '/'), { status: 403, body: DETACHED });

  await h.exec('rename tagged renamed');
  assert.deepEqual(await pathsOf('renamed'), ['/email', '/tags']);

  await h.exec(
    'integrations add reflection --name more --fields comment,default_port --attach vm:renamed',
  );
  assert.deepEqual(await pathsOf('renamed'), ['/email', '/tags', '/comment', '/default_port']);
  assert.deepEqual(await h.reflect('renamed', '/default_port'), { default_port: 8000 });
  assert.deepEqual(await status('plain', '/'), { status: 403, body: DETACHED });

  await h.exec('integrations remove more');
  await h.exec('integrations remove reflection');
  assert.deepEqual(await status('renamed', '/'), { status: 403, body: DETACHED });
});
