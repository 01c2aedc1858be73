// Fresh VM disks from one mkfs per size (image-template.ts), checked with e2fsprogs itself.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { ImageTemplates } from '../../../src/service/vm/disk/image-template.js';
import { findExecutable } from '../../../src/service/vm/process/executables.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

const MIB = 2 ** 20;
const GIB = 2 ** 30;

describe('ImageTemplates: empty ext4 images without an mkfs each', () => {
  let dir: TempDir;
  let templates: ImageTemplates;

  before(async () => {
    dir = await createTempDir('template');
    templates = new ImageTemplates({
      mkfs: findExecutable('mkfs.ext4')!,
      perl: findExecutable('perl')!,
    });
  });
  after(() => dir.remove());

  test('images of one size are the same bytes', async () => {
    const [a, b] = [dir.join('a.img'), dir.join('b.img')];
    await templates.makeImage(a, 256 * MIB, dir.join('scratch.img'));
    await templates.makeImage(b, 256 * MIB, dir.join('scratch.img'));
    execFileSync('cmp', [a, b]);
    // The scratch image is gone once the template is read.
    assert.equal(existsSync(dir.join('scratch.img')), false);
  });

  test('a 10 GiB image: sparse, private, a clean ext4 of that size', async () => {
    const big = dir.join('big.img');
    await templates.makeImage(big, 10 * GIB, dir.join('scratch.img'));
    const image = await stat(big);
    assert.equal(image.size, 10 * GIB);
    assert.equal(image.mode & 0o777, 0o600);
    assert.ok(image.blocks * 512 < MIB, `${image.blocks * 512} bytes allocated`);
    execFileSync(findExecutable('e2fsck')!, ['-f', '-n', big]);
    const header = execFileSync(findExecutable('dumpe2fs')!, ['-h', big]).toString();
    assert.match(header, /^Block count:\s+2621440$/m);
  });

  test('an image that exists already is kept as it is', async () => {
    const taken = dir.join('taken.img');
    await writeFile(taken, 'mine');
    await assert.rejects(templates.makeImage(taken, GIB, dir.join('scratch.img')), {
      code: 'EEXIST',
    });
    assert.equal(await readFile(taken, 'utf8'), 'mine');
  });
});
