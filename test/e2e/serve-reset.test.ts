// `exectl serve reset` (SPEC §7): empties a data folder — accounts, keys, VMs and their disks,
// integrations — so that the next start bootstraps again; refused while a server runs on it.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { generateKey, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt, assertOneLineError, exectl } from './harness.js';
import { onTerminal, shown } from './pty.js';
import { TEST_FLAGS, execJson, startServe, stopAll } from './serve-server.js';

let dir: TempDir;
let ada: GeneratedKey;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-reset');
  ada = await generateKey(dir.path, 'ed25519', { name: 'ada', comment: 'ada@laptop' });
});
after(async () => {
  await stopAll();
  await dir.remove();
});

const serveFor = (data: string, owner: string) =>
  startServe(['--data', data, ...TEST_FLAGS, '--owner', owner, '--authorized-key', ada.pubPath], {
    home: dir.path,
  });
const serve = (args: string[]) => exectl(['serve', ...args], { home: dir.path });

test('reset empties the folder; the next start bootstraps a new owner and VM ids start over', async () => {
  const data = dir.join('data');
  const server = await serveFor(data, 'ada@example.com');
  await execJson(server.url, ada, 'new --name web', 'new');
  assert.ok(existsSync(`${data}/vms/1`));
  assert.equal((await server.stop()).code, 0);
  const added = await serve(['accounts', 'add', 'bob@example.com', '--data', data]);
  assert.equal(added.code, 0, added.stderr);

  const reset = await serve(['reset', '--data', data]);
  assert.deepEqual(
    { code: reset.code, stdout: reset.stdout, stderr: reset.stderr },
    {
      code: 0,
      stdout: `emptied data folder ${data}: removed 2 account(s) and 1 VM(s); the next start bootstraps again\n`,
      stderr: '',
    },
  );
  assert.deepEqual(
    ['exectl.db', 'exectl.db-wal', 'exectl.db-shm', 'vms'].filter((f) =>
      existsSync(`${data}/${f}`),
    ),
    [],
  );
  const list = await serve(['accounts', 'list', '--json', '--data', data]);
  assert.equal(list.stdout, '{\n  "accounts": []\n}\n');

  const again = await serveFor(data, 'grace@example.com');
  assert.ok(
    again.stderr().includes('  Owner       grace@example.com  (account created now)'),
    again.stderr(),
  );
  const vm = (await execJson(again.url, ada, 'new --name web', 'new')) as { vm_name: string };
  assert.equal(vm.vm_name, 'web');
  assert.equal((await again.stop()).code, 0);

  const twice = await serve(['reset', '--data', data]);
  assert.equal(twice.code, 0, twice.stderr);
  assert.match(twice.stdout, /: removed 1 account\(s\) and 1 VM\(s\);/);
});

test('reset is refused while a server runs on the folder, which keeps working', async () => {
  const data = dir.join('busy');
  const server = await serveFor(data, 'ada@example.com');
  assertOneLineError(
    await serve(['reset', '--data', data]),
    2,
    `data folder ${data} is in use by pid ${server.child.pid} — stop that server first, then run this again`,
  );
  const whoami = (await execJson(server.url, ada, 'whoami', 'whoami')) as { email: string };
  assert.equal(whoami.email, 'ada@example.com');
  assert.equal((await server.stop()).code, 0);
});

test('reset needs an existing, kept data folder', async () => {
  const missing = dir.join('nowhere');
  assertOneLineError(
    await serve(['reset', '--data', missing]),
    2,
    `no data folder at ${missing} — start \`exectl serve\` once, or give the right --data DIR`,
  );
  assert.equal(existsSync(missing), false);
  assertOneLineError(
    await serve(['reset', '--ephemeral']),
    2,
    'reset works on a kept data folder, not --ephemeral — give --data DIR (or EXECTL_DATA)',
  );
});

// The host-wide claim of a VM's id range (vm/id-ranges.ts): the slot file naming its disk.
const REGISTRY = '/var/lib/exectl/id-ranges';
async function claimOf(diskDir: string): Promise<{ file: string; holder: string }> {
  const base = Number(await readFile(join(diskDir, 'id-range'), 'utf8'));
  const file = join(REGISTRY, String((base - 0x10000000) / 65536));
  return { file, holder: await readFile(file, 'utf8').catch(() => '') };
}

test('reset gives the VMs’ host-wide id ranges back (machine VMs, as root)', async () => {
  const data = dir.join('ranges');
  const flags = TEST_FLAGS.map((flag) => (flag === 'process' ? 'bwrap' : flag));
  const server = await startServe(
    ['--data', data, ...flags, '--owner', 'ada@example.com', '--authorized-key', ada.pubPath],
    { home: dir.path },
  );
  await execJson(server.url, ada, 'new --name web', 'new');
  await execJson(server.url, ada, 'new --name db', 'new');
  assert.equal((await server.stop()).code, 0);
  const disks = [join(data, 'vms', '1'), join(data, 'vms', '2')];
  const claims = await Promise.all(disks.map(claimOf));
  assert.deepEqual(
    claims.map((c) => c.holder),
    disks,
  );

  const reset = await serve(['reset', '--data', data]);
  assert.equal(reset.code, 0, reset.stderr);
  // Gone, or (on a busy host) already claimed again by another folder's VM: never ours.
  for (const { file } of claims) {
    const holder = await readFile(file, 'utf8').catch(() => '');
    assert.ok(!holder.startsWith(data), `${file} still names ${holder}`);
  }
});

test('on a terminal reset asks first: anything but y changes nothing; y empties', async () => {
  const data = dir.join('asked');
  const server = await serveFor(data, 'ada@example.com');
  assert.equal((await server.stop()).code, 0);
  const question = `exectl: empty data folder ${data}: every account, key, VM with its disk and integration? [y/N] `;
  const args = ['serve', 'reset', '--data', data];

  const declined = await onTerminal(
    dir.path,
    args,
    {},
    { reply: { after: '[y/N] ', type: 'n\r' } },
  );
  assert.deepEqual(declined, {
    code: 2,
    screen: shown(
      `${question}n\nexectl: reset cancelled: data folder ${data} is unchanged — answer y to empty it, or pass --yes\n`,
    ),
  });
  assert.ok(existsSync(`${data}/exectl.db`));

  const agreed = await onTerminal(dir.path, args, {}, { reply: { after: '[y/N] ', type: 'y\r' } });
  assert.deepEqual(agreed, {
    code: 0,
    screen: shown(
      `${question}y\nemptied data folder ${data}: removed 1 account(s) and 0 VM(s); the next start bootstraps again\n`,
    ),
  });
  assert.equal(existsSync(`${data}/exectl.db`), false);
});

test('--yes skips the question on a terminal', async () => {
  const data = dir.join('yes');
  const server = await serveFor(data, 'ada@example.com');
  assert.equal((await server.stop()).code, 0);
  const { code, screen } = await onTerminal(dir.path, ['serve', 'reset', '--yes', '--data', data]);
  assert.deepEqual(
    { code, screen },
    {
      code: 0,
      screen: shown(
        `emptied data folder ${data}: removed 1 account(s) and 0 VM(s); the next start bootstraps again\n`,
      ),
    },
  );
});
