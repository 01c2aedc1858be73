// Host root works on trees a VM wrote, and must never follow a symlink there: a link to a host
// file or folder would give it away. `cp` moves every owner of the copy to the copy's own id
// range (keeping set-id bits, which chown clears); every boot makes the VM's /root again if it
// is gone, and never follows what the VM made at a mount point of its boot (/opt/exectl, where
// the client is shown, and the kernel's folders). A boot that fails leaves no cgroup behind.
// As root, as CI runs the tests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { detectCgroups } from '../../../src/service/vm/cgroups/index.js';
import type { VmSpec } from '../../../src/service/vm/index.js';
import { openVmFixture, type VmFixture } from './fixture.js';

describe('machine VMs: host root never follows a VM’s symlinks', () => {
  let fx: VmFixture;
  let source: VmSpec;

  before(async () => {
    fx = await openVmFixture('bwrap');
    source = await fx.create('source');
  });
  after(() => fx.close());

  test('set-id bits stay, symlinks to host files are neither followed nor entered', async () => {
    const passwd = await stat('/etc/passwd');
    const prepared = await fx.run(
      source,
      [
        'mkdir -p tree/deep && echo x > tree/deep/file && chown -R 1000:1001 tree',
        'cp /bin/true tree/setid && chown 1000:1000 tree/setid && chmod 6755 tree/setid',
        'ln -s /etc/passwd tree/to-passwd && ln -s /etc tree/to-etc',
      ].join(' && '),
    );
    assert.equal(prepared.exitCode, 0, prepared.output);
    const copy = fx.spec('copy');
    await fx.runtime.copy(source, copy);
    const seen = await fx.run(
      copy,
      'cd tree && stat -c "%n %u:%g %a" deep deep/file setid && stat -c "%n %u:%g" to-passwd to-etc',
    );
    assert.equal(
      seen.output,
      [
        'deep 1000:1001 755',
        'deep/file 1000:1001 644',
        'setid 1000:1000 6755',
        'to-passwd 0:0',
        'to-etc 0:0',
        '',
      ].join('\n'),
    );
    // The host's files the links name are untouched.
    const after = await stat('/etc/passwd');
    assert.deepEqual([after.uid, after.gid, after.mode], [passwd.uid, passwd.gid, passwd.mode]);
    await fx.runtime.remove(copy);
  });

  test('a /root made a symlink to a host folder: the boot leaves that folder as it is', async () => {
    const target = await mkdtemp(join(tmpdir(), 'exectl-host-folder-'));
    try {
      const linked = await fx.create('linked');
      const ran = await fx.run(linked, `cd / && rm -rf /root && ln -s ${target} /root`);
      assert.equal(ran.exitCode, 0, ran.output);
      const before = await stat(target);
      // The boot may fail (its working folder is gone): the VM harmed only itself.
      await fx.runtime.restart(linked).catch(() => {});
      const after = await stat(target);
      assert.deepEqual([after.uid, after.gid, after.mode], [before.uid, before.gid, before.mode]);
      await fx.runtime.remove(linked);
    } finally {
      await rm(target, { recursive: true, force: true });
    }
  });

  test('a mount point of the boot replaced (symlink, file): the next boot restores it', async () => {
    const target = await mkdtemp(join(tmpdir(), 'exectl-host-folder-'));
    const vm = await fx.create('remade');
    assert.equal((await fx.run(vm, 'true')).exitCode, 0);
    const cgroups = await cgroupFoldersOf(vm);
    assert.ok(cgroups.length > 0, 'a running VM has its cgroups');
    // What is mounted there first goes (the VM's root may unmount its own mounts).
    const unmount = (path: string) =>
      `for m in $(awk '{ print $5 }' /proc/self/mountinfo | grep '^${path}' | sort -r); do umount -l "$m"; done`;
    const cases: [what: string, command: string][] = [
      [
        '/opt/exectl a symlink to a host folder',
        `${unmount('/opt/exectl')}; rm -rf /opt/exectl && ln -s ${target} /opt/exectl`,
      ],
      [
        '/opt/exectl a symlink inside',
        `${unmount('/opt/exectl')}; rm -rf /opt/exectl && ln -s /etc /opt/exectl`,
      ],
      [
        '/opt/exectl/node a symlink',
        `${unmount('/opt/exectl/node')}; rm -f /opt/exectl/node && ln -s /etc/passwd /opt/exectl/node`,
      ],
      [
        '/opt/exectl/bin a file',
        `${unmount('/opt/exectl/bin')}; rm -rf /opt/exectl/bin && echo x > /opt/exectl/bin`,
      ],
      ['/opt a symlink', `${unmount('/opt')}; rm -rf /opt && ln -s ${target} /opt`],
      ['/tmp a symlink', `${unmount('/tmp')}; rm -rf /tmp && ln -s ${target} /tmp`],
      ['/run a file', `${unmount('/run')}; rm -rf /run && echo x > /run`],
    ];
    try {
      for (const [what, command] of cases) {
        const ran = await fx.run(vm, `cd / && (${command})`);
        assert.equal(ran.exitCode, 0, `${what}: ${ran.output}`);
        await fx.runtime.restart(vm);
        const seen = await fx.run(
          vm,
          'stat -c %F /opt /opt/exectl /opt/exectl/bin /tmp /run && exectl --version >/dev/null && echo client runs',
        );
        assert.equal(
          seen.output,
          `${'directory\n'.repeat(5)}client runs\n`,
          `${what}: ${seen.output}`,
        );
      }
      assert.deepEqual(await readdir(target), []);
    } finally {
      await fx.runtime.remove(vm);
      await rm(target, { recursive: true, force: true });
    }
    assert.deepEqual(
      cgroups.filter((dir) => existsSync(dir)),
      [],
    );
  });

  test('a boot that fails leaves no cgroup folder behind', async () => {
    const broken = await fx.create('broken');
    // Its file system's superblock gone: the image no longer mounts.
    const image = await open(join(broken.diskDir, 'disk.img'), 'r+');
    await image.write(Buffer.alloc(64 * 1024), 0, 64 * 1024, 0);
    await image.close();
    await assert.rejects(fx.runtime.restart(broken), /could not start the sandbox/);
    assert.deepEqual(await cgroupFoldersOf(broken), []);
    await fx.runtime.remove(broken);
  });
});

/** The cgroup folders of the VM (by its id range's name) that exist on this host. */
async function cgroupFoldersOf(vm: VmSpec): Promise<string[]> {
  const host = await detectCgroups();
  assert.ok(!('problem' in host), 'these tests run with cgroups');
  const base = Number(await readFile(join(vm.diskDir, 'id-range'), 'utf8'));
  return host
    .procsFiles(`vm-${base.toString(16)}`)
    .map((file) => dirname(file))
    .filter((dir) => existsSync(dir));
}
