// `exectl ssh-config` with the built CLI against a root server (machine VMs): the blocks it
// writes let the stock OpenSSH clients reach each VM by `<vm>.<vm-domain>` with no flags,
// the host key pinned and checked, every other line of the ssh config kept.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from '../helpers/keys.js';
import { startVmDest, type VmDestFixture } from '../integration/ssh/vm-dest-fixture.js';
import { assertBuilt, exectl } from './harness.js';

let f: VmDestFixture;
let home: string;
before(async () => {
  assertBuilt();
  f = await startVmDest();
  for (const name of ['web', 'api']) {
    const made = await f.lobby(`new --name ${name} --json`);
    assert.equal(made.code, 0, made.stderr);
  }
  home = f.svc.dir.join('home');
  await run('mkdir', ['-p', join(home, '.ssh')]);
});
after(() => f?.svc.stop());

const cli = (args: string[]) =>
  exectl(['--url', f.svc.url, ...args, '--key', f.svc.owner.key.path], { home });
/** The stock client with the written config and nothing else (BatchMode: never a prompt). */
const sshWith = (config: string, args: string[]) =>
  run('ssh', ['-F', config, '-o', 'BatchMode=yes', ...args]);

test('ssh-config --write: ssh, scp, sftp and rsync reach each VM by name, byte-identical', async () => {
  const config = join(home, '.ssh', 'config');
  const mine = 'Host gh\n  HostName github.com\n  User git\n';
  await writeFile(config, mine);
  const wrote = await cli(['ssh-config', '--write']);
  assert.equal(wrote.code, 0, wrote.stderr);
  assert.equal(wrote.stderr, `exectl: 2 VMs in ${config}\n`);
  const text = await readFile(config, 'utf8');
  assert.ok(text.startsWith(`${mine}\n# exectl ssh-config begin\n`), text);
  assert.match(
    text,
    /^Host web\.localhost\n {4}HostName 127\.\d+\.\d+\.\d+\n {4}Port \d+\n {4}User root$/m,
  );

  for (const name of ['web', 'api']) {
    const r = await sshWith(config, [`${name}.localhost`, 'hostname']);
    assert.deepEqual([r.stdout, r.stderr, r.code], [`${name}\n`, '', 0]);
  }
  const blob = join(home, 'blob');
  await writeFile(blob, randomBytes(400_000));
  const copied = await run('scp', ['-F', config, '-q', blob, 'web.localhost:/root/blob']);
  assert.equal(copied.code, 0, copied.stderr);
  const synced = await run('rsync', [
    '-a',
    '-e',
    `ssh -F ${config}`,
    'web.localhost:/root/blob',
    join(home, 'by-rsync'),
  ]);
  assert.equal(synced.code, 0, synced.stderr);
  const fetched = await run('sftp', ['-F', config, '-q', '-b', '-', 'web.localhost'], {
    input: `get /root/blob ${join(home, 'by-sftp')}\n`,
  });
  assert.equal(fetched.code, 0, fetched.stderr);
  const original = await readFile(blob);
  assert.ok(original.equals(await readFile(join(home, 'by-rsync'))), 'rsync copy differs');
  assert.ok(original.equals(await readFile(join(home, 'by-sftp'))), 'sftp copy differs');

  // Again after a change: the block is replaced in place, the user's lines stay.
  assert.equal((await f.lobby('rm api')).code, 0);
  assert.equal((await cli(['ssh-config', '--write'])).code, 0);
  const again = await readFile(config, 'utf8');
  assert.ok(again.startsWith(`${mine}\n# exectl ssh-config begin\n`), again);
  assert.doesNotMatch(again, /api\.localhost/);
  assert.equal(again.match(/# exectl ssh-config begin/g)?.length, 1);
});

test('ssh-config: the pinned host key is checked: another key at that address is refused', async () => {
  const printed = await cli(['ssh-config']);
  assert.equal(printed.code, 0, printed.stderr);
  const config = join(home, 'printed');
  await writeFile(config, printed.stdout);
  const knownHosts = join(home, '.config', 'exectl', 'ssh_known_hosts');
  const pinned = await readFile(knownHosts, 'utf8');
  assert.match(pinned, /^\[127\.\d+\.\d+\.\d+\]:\d+ ssh-ed25519 [A-Za-z0-9+/=]+$/m);
  assert.equal((await sshWith(config, ['web.localhost', 'true'])).code, 0);
  // A pin of another key for the same host: StrictHostKeyChecking refuses, never asks.
  const other = await run('ssh-keygen', [
    '-q',
    '-t',
    'ed25519',
    '-N',
    '',
    '-f',
    join(home, 'other'),
  ]);
  assert.equal(other.code, 0);
  const otherKey = (await readFile(join(home, 'other.pub'), 'utf8'))
    .split(' ')
    .slice(0, 2)
    .join(' ');
  await writeFile(knownHosts, pinned.replace(/ssh-ed25519 \S+/g, otherKey));
  const refused = await sshWith(config, ['web.localhost', 'true']);
  assert.equal(refused.code, 255);
  assert.match(
    refused.stderr,
    /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed/,
  );
});
