// The server's run folder (VM sockets and mount points) in the shared temporary folder: another
// local user who makes the name the server used to choose (exectl-run-<hash of the data
// folder>), as a folder or a symlink, neither stops the server from starting (it did: EEXIST,
// internal error) nor has it use or delete the squatter's folder. The name is mkdtemp's,
// recorded in the data folder; what a killed server left is cleared at the next start, but only
// when it is still a folder of the server's own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createService } from '../../../src/service/index.js';
import { emojiFor } from '../../../src/service/rules/emoji.js';
import { testServiceConfig } from '../../helpers/config.js';
import { asUser, runScriptAs } from '../../helpers/script.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

const NOBODY = 65534;

describe('the run folder cannot be squatted', () => {
  let dir: TempDir;
  const squats: string[] = [];
  let served = 0;

  before(async () => {
    dir = await createTempDir('run-folder');
  });
  after(async () => {
    await Promise.all(squats.map((path) => rm(path, { recursive: true, force: true })));
    await dir.remove();
  });

  /** The name the server used to take for `dataDir`. */
  const oldName = (dataDir: string) =>
    join(tmpdir(), `exectl-run-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}`);

  /** A folder of another user's in the temporary folder, holding one file. */
  const squattersFolder = async (path?: string): Promise<string> => {
    const folder = path ?? (await mkdtemp(join(tmpdir(), 'exectl-squat-')));
    if (path !== undefined) await mkdir(folder);
    squats.push(folder);
    await writeFile(join(folder, 'mine'), 'the squatter’s\n');
    await chown(join(folder, 'mine'), NOBODY, NOBODY);
    await chown(folder, NOBODY, NOBODY);
    return folder;
  };

  /** Starts a server on `dataDir`, makes a VM and runs a command in it; returns its run folder. */
  const serveOnce = async (dataDir: string): Promise<string> => {
    const service = await createService(testServiceConfig({ dataDir, runtime: 'bwrap' }));
    try {
      const runDir = (await readFile(join(dataDir, 'run-folder'), 'utf8')).trim();
      const found = await lstat(runDir);
      assert.deepEqual(
        [found.isDirectory(), found.uid, found.mode & 0o777],
        [true, process.getuid!(), 0o711],
      );
      const name = `web-${++served}`;
      const account = service.store.createAccount(`${name}@example.com`, []);
      const vm = service.store.createVm({
        accountId: account.id,
        name,
        emoji: emojiFor(name),
        status: 'creating',
      });
      await service.machines.create(vm, new AbortController().signal);
      let text = '';
      const ran = await service.machines.exec(vm, 'echo works', {
        signal: new AbortController().signal,
        onOutput: (chunk) => void (text += chunk),
      });
      assert.deepEqual([ran.exitCode, text], [0, 'works\n']);
      return runDir;
    } finally {
      await service.close();
    }
  };

  const untouched = async (folder: string) => {
    const [seen, file] = await Promise.all([stat(folder), stat(join(folder, 'mine'))]);
    assert.deepEqual([seen.uid, file.uid], [NOBODY, NOBODY]);
    assert.equal(await readFile(join(folder, 'mine'), 'utf8'), 'the squatter’s\n');
  };

  test('the old name made a folder of another user: serve starts, works, and leaves it', async () => {
    const dataDir = dir.join('data-folder');
    await mkdir(dataDir);
    const squat = await squattersFolder(oldName(dataDir));
    const runDir = await serveOnce(dataDir);
    assert.notEqual(runDir, squat);
    await untouched(squat);
    assert.equal(existsSync(runDir), false, 'gone once the server stopped');
  });

  test('the old name made a symlink to another user’s folder: serve starts and leaves both', async () => {
    const dataDir = dir.join('data-symlink');
    await mkdir(dataDir);
    const target = await squattersFolder();
    await symlink(target, oldName(dataDir));
    squats.push(oldName(dataDir));
    await serveOnce(dataDir);
    assert.equal(await readlink(oldName(dataDir)), target);
    await untouched(target);
  });

  test('a recorded run folder is cleared at start when it is the server’s, else left', async () => {
    const dataDir = dir.join('data-record');
    await mkdir(dataDir);
    // A killed server's leftover: cleared.
    const leftover = await mkdtemp(join(tmpdir(), 'exectl-run-'));
    await writeFile(join(dataDir, 'run-folder'), `${leftover}\n`);
    await serveOnce(dataDir);
    assert.equal(existsSync(leftover), false);
    // Since made by another user (the temporary folder was cleaned meanwhile): left.
    const theirs = await squattersFolder(join(tmpdir(), `exectl-run-squat${process.pid}`));
    await writeFile(join(dataDir, 'run-folder'), `${theirs}\n`);
    await serveOnce(dataDir);
    await untouched(theirs);
  });

  test('a server that is not root starts beside a root-owned folder of the old name', async () => {
    const serverUid = 47475;
    const dataDir = dir.join('data-user');
    await mkdir(dataDir, { mode: 0o700 });
    await chown(dataDir, serverUid, serverUid);
    await chown(dir.path, serverUid, serverUid);
    const squat = oldName(dataDir);
    await mkdir(squat, { mode: 0o755 });
    squats.push(squat);
    const script = `
      import { readFileSync } from 'node:fs';
      import { createService } from ${JSON.stringify(resolve('src/service/index.ts'))};
      const service = await createService({ ...${JSON.stringify(testServiceConfig({ dataDir }))}, log: () => {} });
      console.log(readFileSync(${JSON.stringify(join(dataDir, 'run-folder'))}, 'utf8').trim());
      await service.close();`;
    const runDir = (await runScriptAs(asUser(serverUid), script)).trim();
    assert.ok(runDir.startsWith(join(tmpdir(), 'exectl-run-')) && runDir !== squat, runDir);
    assert.equal((await stat(squat)).uid, 0);
  });
});
