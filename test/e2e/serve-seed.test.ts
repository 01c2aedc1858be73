// `exectl serve --seed`: the first start applies it (VMs made for real, setup script run),
// a restart with the same seed changes nothing, and a seed the data folder contradicts stops
// the start with one line naming the entry.
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { generateKey, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt, assertOneLineError, exectl } from './harness.js';
import {
  TEST_FLAGS,
  bannerValue,
  execJson,
  launchServe,
  startServe,
  stopAll,
  userEnv,
} from './serve-server.js';

let dir: TempDir;
let ada: GeneratedKey;
let bob: GeneratedKey;
let seedPath: string;
let data: string;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-seed');
  ada = await generateKey(dir.path, 'ed25519', { name: 'ada', comment: 'ada@laptop' });
  bob = await generateKey(dir.path, 'ed25519', { name: 'bob', comment: 'bob@box' });
  seedPath = dir.join('seed.json');
  data = dir.join('data');
  await writeFile(seedPath, seedText());
});
after(async () => {
  await stopAll();
  await dir.remove();
});

function seedText(): string {
  return JSON.stringify({
    accounts: [
      {
        email: 'ada@example.com',
        keys: [ada.publicKeyLine],
        integrations: [
          { name: 'llm', type: 'llm', target: 'https://llm.example.com', attach: ['tag:ai'] },
        ],
        vms: [
          {
            name: 'web',
            tags: ['ai'],
            comment: 'the site',
            setup_script: 'echo seeded > "$HOME/hello"',
          },
        ],
        team_members: ['bob@example.com'],
      },
      { email: 'bob@example.com', keys: [bob.publicKeyLine], vms: [{ name: 'box' }] },
    ],
  });
}

/**
 * What a user sees of the state: each account with its keys, VMs and team (asked of the
 * running server: the offline `accounts list` is refused while it runs). The listener's port,
 * chosen anew at each start, is blanked out of the VM URLs.
 */
async function state(url: string): Promise<unknown> {
  const seen = {
    ada: await execJson(url, ada, 'whoami', 'whoami'),
    bob: await execJson(url, bob, 'whoami', 'whoami'),
    adaKeys: await execJson(url, ada, 'ssh-key list', 'ssh-key list'),
    bobKeys: await execJson(url, bob, 'ssh-key list', 'ssh-key list'),
    adaVms: await execJson(url, ada, 'ls -l', 'ls'),
    bobVms: await execJson(url, bob, 'ls -l', 'ls'),
    team: await execJson(url, ada, 'team members', 'team members'),
  };
  // When a key was last used changes with every request, this function's own included.
  const stable = JSON.stringify(seen, (key, value: unknown) =>
    key === 'last_used_at' ? undefined : value,
  );
  return JSON.parse(stable.replaceAll(`.localhost:${new URL(url).port}`, '.localhost:PORT'));
}

/** Every file named `name` under `root`, with its content. */
async function filesNamed(root: string, name: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return Promise.all(
    entries
      .filter((e) => e.isFile() && e.name === name)
      .map((e) => readFile(join(e.parentPath, e.name), 'utf8')),
  );
}

test('the first start applies the seed; a restart with it changes nothing', async () => {
  const flags = ['--data', data, '--seed', seedPath, ...TEST_FLAGS];
  const first = await startServe(flags, { home: dir.path });
  assert.ok(
    first
      .stderr()
      .startsWith(
        [
          `exectl: seed ${seedPath}: 6 change(s)`,
          '  created account ada@example.com with 1 ssh key(s)',
          '  created account bob@example.com with 1 ssh key(s)',
          '  created integration "llm" of ada@example.com',
          '  created vm "web" of ada@example.com',
          '  created vm "box" of bob@example.com',
          '  added bob@example.com to team "ada\'s team"',
          'exectl serve is ready',
        ].join('\n'),
      ),
    first.stderr(),
  );
  // The seed made the accounts: no owner is invented on top of them.
  assert.equal(bannerValue(first.stderr(), 'Owner'), 'ada@example.com  (2 accounts in all)');
  const seeded = await state(first.url);
  const adaVms = (
    seeded as { adaVms: { vms: { vm_name: string; tags: string[]; status: string }[] } }
  ).adaVms;
  assert.deepEqual(
    adaVms.vms.map((v) => [v.vm_name, v.tags, v.status]),
    [['web', ['ai'], 'running']],
  );
  assert.deepEqual(await filesNamed(join(data, 'vms'), 'hello'), ['seeded\n']);
  assert.equal((await first.stop()).code, 0);

  const second = await startServe(flags, { home: dir.path });
  assert.ok(
    second
      .stderr()
      .startsWith(`exectl: seed ${seedPath}: nothing to change\nexectl serve is ready\n`),
  );
  assert.deepEqual(await state(second.url), seeded);
  assert.equal((await second.stop()).code, 0);
});

test('a seed the data folder contradicts: exit 2, one line naming the entry', async () => {
  const conflicting = dir.join('conflict.json');
  await writeFile(
    conflicting,
    JSON.stringify({ accounts: [{ email: 'bob@example.com', vms: [{ name: 'web' }] }] }),
  );
  const result = await exectl(['serve', '--data', data, '--seed', conflicting, ...TEST_FLAGS], {
    home: dir.path,
    env: userEnv(dir.path),
  });
  assertOneLineError(
    result,
    2,
    'seed accounts[0].vms[0]: vm "web" belongs to another account — change the seed, or the data folder (exectl run ..., exectl serve accounts ...)',
  );
});

test('a stop while the seed runs a setup script: exit 0, and the next start makes the VM', async () => {
  const slowData = dir.join('slow');
  const slowSeed = dir.join('slow.json');
  const seed = (script: string) =>
    JSON.stringify({
      accounts: [{ email: 'ada@example.com', vms: [{ name: 'slow', setup_script: script }] }],
    });
  await writeFile(slowSeed, seed('touch "$HOME/started"; sleep 60'));
  const flags = ['--data', slowData, '--seed', slowSeed, ...TEST_FLAGS];
  const server = launchServe(flags, { home: dir.path });
  await waitForFile(join(slowData, 'vms'), 'started');
  const { code } = await server.stop('SIGTERM');
  assert.equal(code, 0, server.stderr());
  assert.equal(
    server.stderr(),
    'exectl: SIGTERM: stopping — finishing running commands (again to force)\nexectl: stopped\n',
  );

  await writeFile(slowSeed, seed('echo done > "$HOME/hello"'));
  const again = await startServe(flags, { home: dir.path });
  assert.ok(
    again
      .stderr()
      .startsWith(
        `exectl: seed ${slowSeed}: 1 change(s)\n  created vm "slow" of ada@example.com\n`,
      ),
  );
  assert.deepEqual(await filesNamed(join(slowData, 'vms'), 'hello'), ['done\n']);
  await again.stop();
});

/** Waits until a file named `name` exists somewhere under `root`. */
async function waitForFile(root: string, name: string): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 50) {
    const found = await readdir(root, { recursive: true }).catch(() => [] as string[]);
    if (found.some((path) => path.endsWith(`/${name}`) || path === name)) return;
    await sleep(50);
  }
  throw new Error(`no ${name} under ${root}`);
}
