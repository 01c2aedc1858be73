// SPEC §7 "Disks" (issue 25): VM images are sparse, so one VM filling its disk must not fill
// the data folder's file system. A real `exectl serve` (as root, machine VMs) on a small ext4
// file system of its own: one VM writes until it cannot; the server keeps answering, its
// database stays writable, another VM still writes and reads, `new` is refused with the free
// space named, and SIGTERM ends the server cleanly.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { statfsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { humanBytes } from '../../src/service/rules/limit-values.js';
import { diskFloor } from '../../src/service/vm/disk/budget.js';
import { generateKey, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt } from './harness.js';
import { curlExec, recipeToken, startServe, stopAll, type ServeProcess } from './serve-server.js';

const root = process.getuid?.() === 0;
const CMDS = ['new', 'ssh', 'tag', 'stat', 'rm', 'cp', 'resize'];
// 700 MB: room for two VMs' systems, small enough to fill in seconds.
const FS_MB = 700;

describe('a VM filling its disk on a small data folder (as root)', { skip: !root }, () => {
  let dir: TempDir;
  let data: string;
  let key: GeneratedKey;
  let server: ServeProcess;
  let token: string;
  const exec = (line: string) => curlExec(server.url, token, line);
  const ok = async (line: string) => {
    const answer = await exec(line);
    assert.equal(answer.status, 200, `${line}: ${answer.body}`);
    return answer.body;
  };
  const freeBytes = () => {
    const fs = statfsSync(data);
    return fs.bavail * fs.bsize;
  };

  before(async () => {
    assertBuilt();
    dir = await createTempDir('e2e-disk-floor');
    data = dir.join('data');
    await mkdir(data);
    const image = dir.join('fs.img');
    execFileSync('truncate', ['-s', `${FS_MB}M`, image]);
    execFileSync('mkfs.ext4', ['-q', '-F', image]);
    execFileSync('mount', ['-o', 'loop', image, data]);
    key = await generateKey(dir.path, 'ed25519', { name: 'me' });
    server = await startServe(
      [
        '--data',
        data,
        '--listen',
        '127.0.0.1:0',
        '--ssh-listen',
        'off',
        '--reflection-listen',
        '127.0.0.1:0',
        '--runtime',
        'bwrap',
        '--owner',
        'me@example.com',
        '--authorized-key',
        key.pubPath,
      ],
      { home: dir.path },
    );
    token = await recipeToken(key, CMDS);
    await ok('new --name filler');
    await ok('new --name other');
    // Smaller than the ceiling (the file system's size), so that it could grow.
    await ok('resize other --disk 256M');
  });
  after(async () => {
    await stopAll();
    if (dir === undefined) return;
    // The server is gone, and with it every VM's mount of its image; their loop devices let go
    // of the images a moment later, so the unmount is tried for up to 10 s, then done lazily.
    for (let tries = 0; ; tries++) {
      try {
        execFileSync('umount', tries < 100 ? [data] : ['-l', data], { stdio: 'ignore' });
        break;
      } catch (error) {
        if (tries >= 100) throw error;
        await sleep(100);
      }
    }
    await dir.remove();
  });

  test('the filler is stopped at its share; the server, its database and the other VM go on', async (t) => {
    // The filler writes (each file written out: conv=fsync, so the host sees it at once) until
    // the server says it holds it back; a dd that meets its full disk just ends. Each round may
    // take at most half of what lies above the floor, so a few rounds cross it; 20 rounds of
    // 200M are far more than the file system holds.
    const heldBack = async () =>
      (JSON.parse(await ok('stat filler')) as { disk_note?: string }).disk_note !== undefined;
    for (let round = 0; round < 20 && !(await heldBack()); round++) {
      const fill = await ok(
        `ssh filler 'dd if=/dev/zero of=/root/f${round} bs=1M count=200 conv=fsync 2>/dev/null; echo done'`,
      );
      assert.equal(fill, 'done\n');
    }
    const { blocks, bsize } = statfsSync(data);
    const floor = diskFloor(blocks * bsize);
    // The reserve under the floor (half of it) is the database's: never touched by a VM.
    const free = freeBytes();
    assert.ok(free >= floor / 2 - 4 * 2 ** 20, `only ${free} bytes free (floor ${floor})`);

    t.diagnostic(`free after the fill: ${free} bytes; floor ${floor}, reserve ${floor / 2}`);
    const healthz = await fetch(`${server.url}/healthz`);
    assert.equal(healthz.status, 200);
    assert.equal((await ok('tag filler full')).includes('full'), true);
    const stat = JSON.parse(await ok('stat filler')) as { disk_note?: string };
    assert.equal(
      stat.disk_note?.replace(/has \S+ free/, 'has N free'),
      `writes limited: the server's disk has N free, under its floor of ${humanBytes(floor)}`,
    );

    // The other VM's file system is whole: it writes, syncs and reads back.
    assert.equal(
      await ok(`ssh other 'echo hello > /root/probe && sync && cat /root/probe && touch /root/ok'`),
      'hello\n',
    );

    const refused = await exec('new --name third');
    assert.equal(refused.status, 422, refused.body);
    const message = (JSON.parse(refused.body) as { error: string }).error;
    const shown = message.replace(/has \d+(\.\d)?[KMG]? free/, 'has N free');
    assert.equal(
      shown,
      `cannot create a VM: the server's disk has N free, under its floor of ${humanBytes(floor)}`,
    );

    const refusedLine = async (line: string, action: string, need = '') => {
      const answer = await exec(line);
      assert.equal(answer.status, 422, answer.body);
      const text = (JSON.parse(answer.body) as { error: string }).error;
      assert.equal(
        text.replace(/has \d+(\.\d)?[KMG]? free/, 'has N free').replace(/needs \S+\)/, 'needs S)'),
        `cannot ${action}: the server's disk has N free, under its floor of ${humanBytes(floor)}${need}`,
      );
    };
    await refusedLine('resize other --disk 512M', 'grow the disk of vm "other"');
    await refusedLine('cp other', 'copy vm "other"', ' (it needs S)');

    // Space comes back with the filler's disk: a new VM fits again.
    await ok('rm filler');
    await ok('new --name third');
    assert.equal(await ok(`ssh third 'echo fine'`), 'fine\n');
  });

  test('SIGTERM ends the server cleanly (exit 0)', async () => {
    const { code } = await server.stop('SIGTERM');
    assert.equal(code, 0, server.stderr().slice(-2000));
    assert.doesNotMatch(server.stderr(), /internal error/);
  });
});
