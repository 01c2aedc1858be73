// `exectl serve accounts add|list|remove` on a data folder, offline and between runs of a
// server: exact output, JSON, exit codes and one-line errors. While a server runs:
// serve-accounts-live.test.ts.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { generateKey, run, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt, assertOneLineError, exectl } from './harness.js';
import {
  TEST_FLAGS,
  curlExec,
  execJson,
  recipeToken,
  startServe,
  stopAll,
} from './serve-server.js';

let dir: TempDir;
let ada: GeneratedKey;
let ada2: GeneratedKey;
let bob: GeneratedKey;
const fp: Record<string, string> = {};
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-accounts');
  ada = await generateKey(dir.path, 'ed25519', { name: 'ada', comment: 'ada@laptop' });
  ada2 = await generateKey(dir.path, 'ed25519', { name: 'ada2', comment: '' });
  bob = await generateKey(dir.path, 'ecdsa-384', { name: 'bob', comment: 'bob@box' });
  for (const [name, key] of Object.entries({ ada, ada2, bob })) {
    fp[name] = (await run('ssh-keygen', ['-lf', key.pubPath])).stdout.split(' ')[1]!;
  }
});
after(async () => {
  await stopAll();
  await dir.remove();
});

const accounts = (args: string[], env: Record<string, string> = {}) =>
  exectl(['serve', 'accounts', ...args], { home: dir.path, env });

describe('on a data folder, offline', () => {
  let data: string;
  before(() => {
    data = dir.join('data');
  });
  const userId = /usr_[a-z2-7]{16}/;

  test('add creates the folder (0700) and the account with its key', async () => {
    const result = await accounts(['add', 'ada@example.com', '--key', ada.pubPath, '--data', data]);
    assert.deepEqual([result.code, result.stderr], [0, '']);
    assert.match(
      result.stdout,
      new RegExp(
        `^created account ada@example\\.com \\(${userId.source}\\), added \\S+ \\(ada@laptop\\)\\n$`,
      ),
    );
    assert.ok(result.stdout.includes(fp.ada!));
    assert.equal(statSync(data).mode & 0o777, 0o700);
  });

  test('add on an existing account adds the missing keys only', async () => {
    const again = await accounts([
      'add',
      'ada@example.com',
      '--key',
      ada.pubPath,
      '--key',
      ada2.pubPath,
      '--data',
      data,
    ]);
    assert.deepEqual([again.code, again.stderr], [0, '']);
    assert.equal(again.stdout, `account ada@example.com exists, added ${fp.ada2} (key-1)\n`);
    const same = await accounts(['add', 'ada@example.com', '--key', ada.pubPath, '--data', data]);
    assert.equal(same.stdout, 'account ada@example.com exists, keys unchanged\n');
  });

  test('add without a key; the folder may come from EXECTL_DATA', async () => {
    const result = await accounts(['add', 'bob@example.com'], { EXECTL_DATA: data });
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      new RegExp(`^created account bob@example\\.com \\(${userId.source}\\), no ssh key\\n$`),
    );
  });

  test('list --json: every account with its keys, oldest first', async () => {
    const result = await accounts(['list', '--json', '--data', data]);
    assert.equal(result.code, 0, result.stderr);
    const list = JSON.parse(result.stdout) as {
      accounts: { user_id: string; created_at: string }[];
    };
    assert.deepEqual(list, {
      accounts: [
        {
          email: 'ada@example.com',
          user_id: list.accounts[0]!.user_id,
          created_at: list.accounts[0]!.created_at,
          ssh_keys: [
            { name: 'ada@laptop', fingerprint: fp.ada },
            { name: 'key-1', fingerprint: fp.ada2 },
          ],
        },
        {
          email: 'bob@example.com',
          user_id: list.accounts[1]!.user_id,
          created_at: list.accounts[1]!.created_at,
          ssh_keys: [],
        },
      ],
    });
    for (const a of list.accounts) {
      assert.match(a.user_id, new RegExp(`^${userId.source}$`));
      assert.match(a.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }

    const piped = await accounts(['list', '--data', data]);
    assert.equal(
      piped.stdout,
      list.accounts
        .map(
          (a, i) =>
            [
              i === 0 ? 'ada@example.com' : 'bob@example.com',
              a.user_id,
              i === 0 ? 2 : 0,
              a.created_at,
            ].join('\t') + '\n',
        )
        .join(''),
    );
  });

  test('a key of another account, a bad email, an unreadable key file: one-line errors', async () => {
    assertOneLineError(
      await accounts(['add', 'bob@example.com', '--key', ada.pubPath, '--data', data]),
      1,
      `ssh key ${fp.ada} is registered to another account`,
    );
    assertOneLineError(
      await accounts(['add', 'not-an-email', '--data', data]),
      2,
      'invalid email "not-an-email" — e.g. ada@example.com',
    );
    assertOneLineError(
      await accounts(['add', 'c@example.com', '--key', dir.join('missing.pub'), '--data', data]),
      2,
      `--key ${dir.join('missing.pub')} cannot be read (ENOENT) — check the path and its permissions`,
    );
    assertOneLineError(
      await accounts(['add', 'c@example.com', '--key', ada.path, '--data', data]),
      2,
      `--key ${ada.path}:1: not an SSH public key — give .pub files or authorized_keys files without options before the key`,
    );
  });

  test('remove deletes the account and its keys; an unknown email is exit 1', async () => {
    const result = await accounts(['remove', 'bob@example.com', '--data', data]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      new RegExp(`^removed account bob@example\\.com \\(${userId.source}\\)\\n$`),
    );
    const list = JSON.parse((await accounts(['list', '--json', '--data', data])).stdout) as {
      accounts: { email: string }[];
    };
    assert.deepEqual(
      list.accounts.map((a) => a.email),
      ['ada@example.com'],
    );
    assertOneLineError(
      await accounts(['remove', 'bob@example.com', '--data', data]),
      1,
      'no account for "bob@example.com" — see `exectl serve accounts list`',
    );
  });

  test('list and remove need an existing folder; --ephemeral makes no sense here', async () => {
    const missing = dir.join('nowhere');
    assertOneLineError(
      await accounts(['list', '--data', missing]),
      2,
      `no data folder at ${missing} — start \`exectl serve\` once, or give the right --data DIR`,
    );
    for (const args of [['list'], ['add', 'ada@example.com']]) {
      assertOneLineError(
        await accounts([...args, '--ephemeral']),
        2,
        'accounts commands work on a kept data folder, not --ephemeral — give --data DIR (or EXECTL_DATA)',
      );
    }
  });
});

describe('between runs of a server', () => {
  /** A server on `data` whose owner ada@example.com signs in with her key. */
  const serveForAda = (data: string) =>
    startServe(
      [
        '--data',
        data,
        ...TEST_FLAGS,
        '--owner',
        'ada@example.com',
        '--authorized-key',
        ada.pubPath,
      ],
      { home: dir.path },
    );

  test('a server without keys says how to add one; after accounts add the key works at once', async () => {
    const data = dir.join('live');
    const args = ['--data', data, ...TEST_FLAGS, '--owner', 'ada@example.com'];
    const server = await startServe(args, {
      home: dir.path, // no ~/.ssh: no key at all
    });
    assert.ok(
      server
        .stderr()
        .includes(
          [
            '  WARNING: ada@example.com has no SSH key registered: nobody can sign in.',
            '  Make a key if you have none and register it; this server takes it at once:',
            '    ssh-keygen -t ed25519',
            `    exectl serve accounts add ada@example.com --key ~/.ssh/id_ed25519.pub --data ${data}`,
          ].join('\n'),
        ),
      server.stderr(),
    );
    const token = await recipeToken(ada, ['whoami']);
    assert.equal((await curlExec(server.url, token, 'whoami')).status, 401);

    // The command of the banner, as it is, while the server runs.
    const added = await accounts(['add', 'ada@example.com', '--key', ada.pubPath, '--data', data]);
    assert.equal(added.code, 0, added.stderr);
    const whoami = (await execJson(server.url, ada, 'whoami', 'whoami')) as { email: string };
    assert.equal(whoami.email, 'ada@example.com');
    assert.equal((await server.stop()).code, 0);
  });

  test('accounts remove revokes the key: the next server refuses it with 401', async () => {
    const data = dir.join('revoke');
    const added = await accounts(['add', 'bob@example.com', '--key', bob.pubPath, '--data', data]);
    assert.equal(added.code, 0, added.stderr);
    const token = await recipeToken(bob, ['whoami']);
    const server = await serveForAda(data);
    assert.equal((await curlExec(server.url, token, 'whoami')).status, 200);
    assert.equal((await server.stop()).code, 0);

    const removed = await accounts(['remove', 'bob@example.com', '--data', data]);
    assert.equal(removed.code, 0, removed.stderr);
    const again = await serveForAda(data);
    assert.equal((await curlExec(again.url, token, 'whoami')).status, 401);
    assert.equal((await again.stop()).code, 0);
  });

  test('remove is refused while the account owns VMs', async () => {
    const data = dir.join('vms');
    const server = await serveForAda(data);
    await execJson(server.url, ada, 'new --name web', 'new');
    assert.equal((await server.stop()).code, 0);
    assertOneLineError(
      await accounts(['remove', 'ada@example.com', '--data', data]),
      1,
      'ada@example.com still owns 1 VM(s): web — remove them first, with the server running: exectl run rm web',
    );
  });
});
