// Host root works on trees a VM wrote, and must never follow a symlink there: a link to a host
// file or folder would give it away. `cp` moves every owner of the copy to the copy's own id
// range (keeping set-id bits, which chown clears); every boot makes the VM's /root again if it
// is gone. As root, as CI runs the tests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
});
