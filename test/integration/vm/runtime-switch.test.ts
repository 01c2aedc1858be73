// A data folder made under `--runtime process` (files owned by the root server), then served
// with bwrap: the VM's root (the unprivileged id) gets its files, and nothing outside its disk.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { link, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runtimeFor } from './fixture.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

let dir: TempDir;

before(async () => {
  dir = await createTempDir('vm-switch');
});
after(() => dir.remove());

test('a process-runtime disk moves into the VM’s own disk; a file linked from outside is copied, never written through', async (t) => {
  if (process.getuid?.() !== 0) return t.skip('only a root server gives VMs a disk image');
  const vm = { name: 'moved', diskDir: dir.join('vms', '1'), env: {} };
  const processRuntime = await runtimeFor('process');
  await processRuntime.create(vm);
  // A trap an older VM could have set in its home, at the image's top: layers of its own whose
  // upper folder is a host folder. They are the VM's files, moved into its home, never used.
  const trap = await mkdtemp(join(tmpdir(), 'exectl-trap-'));
  await processRuntime.exec(
    vm,
    `mkdir -p work overlay/root/work && echo old > work/notes && ln -s ${trap} overlay/root/upper`,
  );
  const outside = dir.join('outside.txt');
  await writeFile(outside, 'not the VM’s\n');
  await link(outside, dir.join('vms', '1', 'linked.txt'));
  await processRuntime.shutdown();

  const bwrapRuntime = await runtimeFor('bwrap');
  try {
    const chunks: Buffer[] = [];
    const result = await bwrapRuntime.exec(
      vm,
      'echo new >> work/notes && cat work/notes; echo x >> linked.txt; stat -c "%u %n" work/notes linked.txt; touch /made-by-vm; readlink overlay/root/upper',
      { onOutput: (c) => chunks.push(c) },
    );
    assert.equal(
      Buffer.concat(chunks).toString(),
      `old\nnew\n0 work/notes\n0 linked.txt\n${trap}\n`,
    );
    assert.equal(result.exitCode, 0);
    assert.deepEqual(await readdir(trap), []);
    assert.deepEqual((await readdir(dir.join('vms', '1'))).sort(), [
      'disk.img',
      'id-range',
      'root-layout',
    ]);
    assert.equal(await readFile(outside, 'utf8'), 'not the VM’s\n');
    assert.equal((await stat(outside)).uid, 0);
  } finally {
    await bwrapRuntime.shutdown();
    await rm(trap, { recursive: true, force: true });
  }
});
