// State kept in the data folder across restarts: a `kill -9` right after an acknowledged
// change loses nothing, SIGTERM closes the database cleanly, folders are created private,
// and the default folder follows XDG_DATA_HOME.
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { generateKey, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt } from './harness.js';
import {
  TEST_FLAGS,
  bannerValue,
  curlExec,
  execJson,
  recipeToken,
  startServe,
  stopAll,
} from './serve-server.js';

let dir: TempDir;
let key: GeneratedKey;
let laptop: GeneratedKey;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-serve-data');
  key = await generateKey(dir.path, 'ed25519', { name: 'me', comment: 'me@desk' });
  laptop = await generateKey(dir.path, 'ecdsa-256', { name: 'laptop', comment: 'me@laptop' });
});
after(async () => {
  await stopAll();
  await dir.remove();
});

const keyNames = async (url: string) => {
  const list = (await execJson(url, key, 'ssh-key list', 'ssh-key list')) as {
    ssh_keys: { name: string }[];
  };
  return list.ssh_keys.map((k) => k.name);
};

test('kill -9 right after an acknowledged ssh-key add: the key is there after restart', async () => {
  const data = dir.join('state', 'nested'); // parents are created too
  const flags = ['--data', data, ...TEST_FLAGS, '--owner', 'me@example.com'];
  const first = await startServe([...flags, '--authorized-key', key.pubPath], { home: dir.path });
  assert.equal(first.dataDir, data);
  assert.equal(statSync(data).mode & 0o777, 0o700);

  const token = await recipeToken(key, ['ssh-key add']);
  const added = await curlExec(
    first.url,
    token,
    `ssh-key add --name laptop ${laptop.publicKeyLine}`,
  );
  assert.equal(added.status, 200, added.body);
  const { signal } = await first.stop('SIGKILL');
  assert.equal(signal, 'SIGKILL');

  const second = await startServe(flags, { home: dir.path });
  // Not a first start any more: the owner is not created again.
  assert.equal(bannerValue(second.stderr(), 'Owner'), 'me@example.com');
  assert.deepEqual(await keyNames(second.url), ['me@desk', 'laptop']);
  assert.equal((await second.stop('SIGTERM')).code, 0);
});

test('SIGTERM closes the database cleanly: WAL checkpointed and removed, integrity ok', async () => {
  const data = dir.join('clean');
  const server = await startServe(
    ['--data', data, ...TEST_FLAGS, '--owner', 'me@example.com', '--authorized-key', key.pubPath],
    { home: dir.path },
  );
  assert.deepEqual(await keyNames(server.url), ['me@desk']);
  assert.ok(existsSync(join(data, 'exectl.db-wal')), 'WAL in use while running');
  assert.equal((await server.stop('SIGTERM')).code, 0);

  assert.equal(existsSync(join(data, 'exectl.db-wal')), false);
  assert.equal(existsSync(join(data, 'exectl.db-shm')), false);
  const db = new Database(join(data, 'exectl.db'), { readonly: true });
  try {
    assert.deepEqual(db.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
    const emails = db.prepare('SELECT email FROM accounts').all();
    assert.deepEqual(emails, [{ email: 'me@example.com' }]);
  } finally {
    db.close();
  }
});

test('the default data folder is $XDG_DATA_HOME/exectl, else ~/.local/share/exectl', async () => {
  const xdg = dir.join('xdg');
  const withXdg = await startServe([...TEST_FLAGS, '--owner', 'me@example.com'], {
    home: dir.path,
    env: { XDG_DATA_HOME: xdg },
  });
  assert.equal(withXdg.dataDir, join(xdg, 'exectl'));
  await withXdg.stop();

  const home = dir.join('home');
  await mkdir(home);
  const withoutXdg = await startServe([...TEST_FLAGS, '--owner', 'me@example.com'], {
    home,
    env: { XDG_DATA_HOME: '' },
  });
  assert.equal(withoutXdg.dataDir, join(home, '.local', 'share', 'exectl'));
  assert.ok(existsSync(join(home, '.local', 'share', 'exectl', 'exectl.db')));
  await withoutXdg.stop();
});
