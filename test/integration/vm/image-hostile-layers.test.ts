// Hostile layers (SPEC §4a): an image is the input of anyone who can push to a registry. Its
// layers are unpacked into the image cache (vm/image/) without changing anything outside its
// folder: a symlink out of the root and a later layer writing through it, a device node, a
// setuid-root file. Real docker-registry, skopeo and umoci; the cache as the server uses it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, lstat, mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ImageCache } from '../../../src/service/vm/image/index.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';
import { pushBusyboxImage, startRegistry, type TestRegistry } from './image-registry.js';

const run = promisify(execFile);

describe('hostile layers change nothing outside the image cache (as root)', () => {
  let dir: TempDir;
  let registry: TestRegistry;
  let cache: ImageCache;
  const outside = () => dir.join('outside');

  before(async () => {
    dir = await createTempDir('image-hostile');
    await mkdir(outside());
    registry = await startRegistry(dir.join('registry'));
    cache = new ImageCache(
      dir.join('images'),
      { skopeo: '/usr/bin/skopeo', umoci: '/usr/bin/umoci' },
      { insecure: [registry.host] },
      dir.join('ids'),
    );
    await mkdir(dir.join('ids'));
  });
  after(async () => {
    await registry?.stop();
    await dir.remove();
  });

  test('a symlink out of the root, written through by a later layer, a device node and a setuid-root file', async () => {
    const work = dir.join('hostile');
    await pushBusyboxImage(work, registry.host, 'tests/hostile:1', {
      prepare: async (root) => {
        await symlink(outside(), join(root, 'escape'));
        await symlink('../../../../../../..' + outside(), join(root, 'dotdot'));
        await run('mknod', [join(root, 'disk'), 'b', '7', '0']);
        await writeFile(join(root, 'suid'), '#!/bin/sh\n');
        await chmod(join(root, 'suid'), 0o4755);
      },
    });
    // A second layer writes through the symlinks of the first.
    const second = join(work, 'second');
    await mkdir(join(second, 'escape'), { recursive: true });
    await mkdir(join(second, 'dotdot'), { recursive: true });
    await writeFile(join(second, 'escape', 'pwned'), 'x');
    await writeFile(join(second, 'dotdot', 'pwned2'), 'x');
    await run('umoci', ['insert', '--image', `${join(work, 'layout')}:img`, second, '/']);
    await run('skopeo', [
      'copy',
      '--quiet',
      '--dest-tls-verify=false',
      `oci:${join(work, 'layout')}:img`,
      `docker://${registry.host}/tests/hostile:2`,
    ]);
    const image = await cache.ensure({
      reference: `${registry.host}/tests/hostile:2`,
      credentials: null,
      maxBytes: 2 ** 30,
      signal: new AbortController().signal,
    });
    assert.deepEqual(await readdir(outside()), []);
    assert.equal(existsSync(join(image.rootfs, 'disk')), false);
    const suid = await lstat(join(image.rootfs, 'suid'));
    assert.notEqual(suid.uid, 0);
    assert.ok(suid.uid >= 100_000, `owned by ${suid.uid}`);
    assert.equal((await lstat(dir.join('images'))).mode & 0o777, 0o700);
  });

  test('an image larger than the disk is refused and leaves nothing', async () => {
    const work = dir.join('large');
    await pushBusyboxImage(work, registry.host, 'tests/large:1', {
      prepare: async (root) => writeFile(join(root, 'big'), Buffer.alloc(8 * 2 ** 20, 1)),
    });
    await assert.rejects(
      cache.ensure({
        reference: `${registry.host}/tests/large:1`,
        credentials: null,
        maxBytes: 4 * 2 ** 20,
        signal: new AbortController().signal,
      }),
      /more than the VM's disk of 4M/,
    );
    const left = (await readdir(dir.join('images'))).filter((n) => n !== 'id-range');
    assert.equal(left.filter((n) => n.includes('pull')).length, 0);
  });
});
