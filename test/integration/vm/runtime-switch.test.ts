// A data folder made under `--runtime process` (files owned by the root server), then served
// with bwrap: the VM's root (the unprivileged id) gets its files, and nothing outside its disk.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { link, stat, writeFile } from 'node:fs/promises';
import { createRuntime } from '../../../src/service/vm/index.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

let dir: TempDir;

before(async () => {
  dir = await createTempDir('vm-switch');
});
after(() => dir.remove());

test('a process-runtime disk is handed to the VM id, except files linked from outside', async (t) => {
  if (process.getuid?.() !== 0) return t.skip('only a root server maps VMs to another id');
  const vm = { name: 'moved', diskDir: dir.join('vms', '1'), env: {} };
  const processRuntime = createRuntime('process');
  await processRuntime.create(vm);
  await processRuntime.exec(vm, 'mkdir -p work && echo old > work/notes');
  const outside = dir.join('outside.txt');
  await writeFile(outside, 'not the VM’s\n');
  await link(outside, dir.join('vms', '1', 'linked.txt'));
  await processRuntime.shutdown();

  const bwrapRuntime = createRuntime('bwrap');
  try {
    const chunks: Buffer[] = [];
    const result = await bwrapRuntime.exec(
      vm,
      'echo new >> work/notes && cat work/notes; echo x >> linked.txt',
      { onOutput: (c) => chunks.push(c) },
    );
    assert.equal(
      Buffer.concat(chunks).toString(),
      'old\nnew\n/bin/sh: 1: cannot create linked.txt: Permission denied\n',
    );
    assert.equal(result.exitCode, 2);
    assert.equal((await stat(dir.join('vms', '1', 'work', 'notes'))).uid, 65534);
    assert.equal((await stat(outside)).uid, 0);
  } finally {
    await bwrapRuntime.shutdown();
  }
});
