// The data folder's files (SPEC §7): the database, its journal files, the SSH host key and the
// lock are readable by the server's user only whatever the umask; a folder open to others gets
// a warning; a corrupt, unreadable or read-only database and an unusable folder are one line
// naming the file and the cause, quickly — never `internal error`, never a hang.
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt, assertOneLineError, exectl, withUmask, type CliResult } from './harness.js';
import { curlExec, startServe, stopAll, userEnv } from './serve-server.js';

let dir: TempDir;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-files');
});
after(async () => {
  await stopAll();
  await dir.remove();
});

const LISTEN = [
  '--listen',
  '127.0.0.1:0',
  '--reflection-listen',
  '127.0.0.1:0',
  '--runtime',
  'process',
];

/**
 * `exectl serve --data data`, which must fail rather than serve: a serve that started would
 * never end, and is killed after 10 s (exit 137, asserted against; the bound is on hanging, not
 * a speed: node's own start is in it, slow on a loaded machine).
 */
async function failingServe(data: string, wrap: readonly string[] = []): Promise<CliResult> {
  const result = await exectl(['serve', '--data', data, ...LISTEN, '--ssh-listen', 'off'], {
    home: dir.path,
    env: userEnv(dir.path),
    wrap: ['timeout', '-s', 'KILL', '10', ...wrap],
  });
  assert.notEqual(result.code, 137, `killed after 10 s: ${result.stderr}`);
  return result;
}

test('umask 000 and a 0755 folder: every file is 0600, and a warning names the folder', async () => {
  const data = dir.join('open');
  mkdirSync(data);
  chmodSync(data, 0o755);
  const server = await startServe(
    ['--data', data, ...LISTEN, '--ssh-listen', '127.0.0.1:0', '--owner', 'me@example.com'],
    { home: dir.path, wrap: withUmask('000') },
  );
  assert.equal(
    server.stderr().split('\n')[0],
    `exectl: warning: data folder ${data} can be read by other users (mode 0755) — chmod 700 ${data}`,
  );
  // A request, so the database has surely been written through its journal.
  assert.equal((await curlExec(server.url, 'svc0.x.y', 'whoami')).status, 401);
  const files = [
    'exectl.db',
    'exectl.db-wal',
    'exectl.db-shm',
    'exectl.lock',
    'exectl.pid',
    'ssh_host_ed25519_key',
  ];
  const modes = Object.fromEntries(
    files.map((f) => [f, (statSync(`${data}/${f}`).mode & 0o777).toString(8)]),
  );
  assert.deepEqual(modes, Object.fromEntries(files.map((f) => [f, '600'])));
  assert.equal((await server.stop()).code, 0);
});

test('a private folder gets no warning; accounts add under umask 000 makes a 0600 database', async () => {
  const data = dir.join('private');
  const added = await exectl(['serve', 'accounts', 'add', 'ada@example.com', '--data', data], {
    home: dir.path,
    wrap: withUmask('000'),
  });
  assert.equal(added.code, 0, added.stderr);
  assert.equal(statSync(data).mode & 0o777, 0o700);
  assert.equal(statSync(`${data}/exectl.db`).mode & 0o777, 0o600);
  const server = await startServe(['--data', data, ...LISTEN, '--ssh-listen', 'off'], {
    home: dir.path,
  });
  assert.equal(server.stderr().split('\n')[0], 'exectl serve is ready');
  assert.equal((await server.stop()).code, 0);
});

test('a corrupt database: one line naming it and the cause', async () => {
  const data = dir.join('corrupt');
  mkdirSync(data, { mode: 0o700 });
  writeFileSync(`${data}/exectl.db`, 'this is not SQLite\n'.repeat(100));
  assertOneLineError(
    await failingServe(data),
    2,
    `database ${data}/exectl.db is corrupt (SQLITE_NOTADB: file is not a database) — move it away (with its -wal and -shm files) to start afresh, or restore a copy`,
  );
});

test('a data folder under /proc: one line, no hang', async () => {
  assertOneLineError(
    await failingServe('/proc/exectl'),
    2,
    'cannot create the data folder /proc/exectl: its file system does not allow it (ENOENT) — give --data a folder you can write to',
  );
});

describe('as a user other than root (root may read and write anything)', () => {
  const uid = 47475;
  const asUser =
    process.getuid?.() === 0
      ? ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--']
      : [];
  /** A folder of the user running exectl holding a database with `mode`. */
  const folderWithDatabase = (name: string, mode: number): string => {
    const data = dir.join(name);
    mkdirSync(data, { mode: 0o700 });
    writeFileSync(`${data}/exectl.db`, '', { mode });
    if (asUser.length > 0) {
      chownSync(data, uid, uid);
      chownSync(`${data}/exectl.db`, uid, uid);
    }
    return data;
  };
  before(() => {
    if (asUser.length > 0) chmodSync(dir.path, 0o755); // let the user in to its folders
  });

  test('an unreadable database', async () => {
    const data = folderWithDatabase('unreadable', 0o000);
    assertOneLineError(
      await failingServe(data, asUser),
      2,
      `database ${data}/exectl.db cannot be read: permission denied (EACCES) — check the permissions of the file and its folder, or use another --data folder`,
    );
  });

  test('a read-only database', async () => {
    const data = folderWithDatabase('readonly', 0o400);
    assertOneLineError(
      await failingServe(data, asUser),
      2,
      `database ${data}/exectl.db is read-only: permission denied (EACCES) — check the permissions of the file and its folder, or use another --data folder`,
    );
  });

  test('a data folder the user cannot write to', async () => {
    const data = folderWithDatabase('readonly-folder', 0o600);
    chmodSync(data, 0o500);
    assertOneLineError(
      await failingServe(data, asUser),
      2,
      `cannot create lock file ${data}/exectl.lock: permission denied (EACCES) — check the permissions of the file and its folder, or use another --data folder`,
    );
  });

  test('a folder made read-only after a first start (its lock file there)', async () => {
    const data = folderWithDatabase('readonly-after-start', 0o600);
    writeFileSync(`${data}/exectl.lock`, '', { mode: 0o600 });
    if (asUser.length > 0) chownSync(`${data}/exectl.lock`, uid, uid);
    chmodSync(data, 0o500);
    assertOneLineError(
      await failingServe(data, asUser),
      2,
      `lock file ${data}/exectl.lock cannot be used: its folder cannot be written to (SQLITE_READONLY_DIRECTORY) — check the permissions of the file and its folder, or use another --data folder`,
    );
  });
});
