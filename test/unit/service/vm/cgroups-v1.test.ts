// The cgroup v1 backend on a fake hierarchy in a temp folder (one folder per controller, as the
// kernel mounts them): what it finds, the files and values it writes, the freezer, usage read
// back, removal. The real v1 host of our machines is exercised by the VM suite.
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  VmCgroup,
  V1Cgroups,
  detectCgroups,
  type CgroupHost,
} from '../../../../src/service/vm/cgroups/index.js';
import { createTempDir, type TempDir } from '../../../helpers/tmp.js';
import { fakeV1, written } from './cgroup-fakes.js';

const LIMITS = { cpus: 1.5, memoryBytes: 512 * 2 ** 20, pids: 300, diskBytes: 2 ** 30 };
const NONE = { cpus: null, memoryBytes: null, pids: null, diskBytes: null };

describe('cgroup v1 backend on a fake hierarchy', () => {
  let dir: TempDir;
  let host: CgroupHost;
  const vmDir = (hierarchy: string) => dir.join(hierarchy, 'exectl', 'vm-1');

  beforeEach(async () => {
    dir = await createTempDir('cg1');
    const found = await detectCgroups(await fakeV1(dir));
    assert.ok(found instanceof V1Cgroups, JSON.stringify(found));
    host = found;
  });
  afterEach(() => dir.remove());

  test('detect: v1, with a parent `exectl` folder under the server’s cgroup in each controller', async () => {
    assert.equal(host.kind, 'v1');
    assert.deepEqual((host as V1Cgroups).parents, {
      memory: dir.join('memory', 'exectl'),
      pids: dir.join('pids', 'exectl'),
      cpu: dir.join('cpu,cpuacct', 'exectl'),
      cpuacct: dir.join('cpu,cpuacct', 'exectl'),
      freezer: dir.join('freezer', 'exectl'),
    });
  });

  test('open: a folder per hierarchy, limits written; memory+swap limited to memory', async () => {
    const cgroup = await VmCgroup.open(host, 'vm-1', LIMITS);
    const hierarchies = ['memory', 'pids', 'cpu,cpuacct', 'freezer'];
    assert.deepEqual(
      cgroup.procsFiles,
      hierarchies.map((h) => join(vmDir(h), 'cgroup.procs')),
    );
    assert.deepEqual(
      {
        memory: await written(vmDir('memory'), 'memory.limit_in_bytes'),
        memsw: await written(vmDir('memory'), 'memory.memsw.limit_in_bytes'),
        pids: await written(vmDir('pids'), 'pids.max'),
        period: await written(vmDir('cpu,cpuacct'), 'cpu.cfs_period_us'),
        quota: await written(vmDir('cpu,cpuacct'), 'cpu.cfs_quota_us'),
      },
      {
        memory: '536870912',
        memsw: '536870912',
        pids: '300',
        period: '100000',
        quota: '150000',
      },
    );
  });

  test('no limit is -1 or max, swap included', async () => {
    const cgroup = await VmCgroup.open(host, 'vm-1', LIMITS);
    await cgroup.apply(NONE);
    assert.deepEqual(
      [
        await written(vmDir('memory'), 'memory.limit_in_bytes'),
        await written(vmDir('memory'), 'memory.memsw.limit_in_bytes'),
        await written(vmDir('pids'), 'pids.max'),
        await written(vmDir('cpu,cpuacct'), 'cpu.cfs_quota_us'),
      ],
      ['-1', '-1', 'max', '-1'],
    );
  });

  test('without swap accounting, memory.memsw is left alone', async () => {
    const plain = await createTempDir('cg1');
    try {
      const found = await detectCgroups(await fakeV1(plain, { swapAccounting: false }));
      assert.ok(!('problem' in found));
      await VmCgroup.open(found, 'vm-1', LIMITS);
      const memory = plain.join('memory', 'exectl', 'vm-1');
      assert.equal(await written(memory, 'memory.limit_in_bytes'), '536870912');
      assert.equal(await written(memory, 'memory.memsw.limit_in_bytes'), undefined);
    } finally {
      await plain.remove();
    }
  });

  test('freezer: FROZEN, then THAWED', async () => {
    const cgroup = await VmCgroup.open(host, 'vm-1', LIMITS);
    await cgroup.freeze(true);
    assert.equal(await written(vmDir('freezer'), 'freezer.state'), 'FROZEN');
    await cgroup.freeze(false);
    assert.equal(await written(vmDir('freezer'), 'freezer.state'), 'THAWED');
  });

  test('usage: bytes, pids and CPU seconds as the kernel reports them; null when unreadable', async () => {
    const cgroup = await VmCgroup.open(host, 'vm-1', LIMITS);
    assert.deepEqual(await cgroup.usage(), { memoryBytes: null, pids: null, cpuSeconds: null });
    await writeFile(join(vmDir('memory'), 'memory.usage_in_bytes'), '73400320\n');
    await writeFile(join(vmDir('pids'), 'pids.current'), '12\n');
    await writeFile(join(vmDir('cpu,cpuacct'), 'cpuacct.usage'), '2500000000\n');
    assert.deepEqual(await cgroup.usage(), { memoryBytes: 73400320, pids: 12, cpuSeconds: 2.5 });
  });

  test('remove: every hierarchy’s folder goes, nested ones too', async () => {
    const cgroup = await VmCgroup.open(host, 'vm-1', LIMITS);
    await mkdir(join(vmDir('memory'), 'child'));
    await cgroup.remove();
    for (const file of cgroup.procsFiles) assert.equal(existsSync(dirname(file)), false, file);
    assert.ok(existsSync(dir.join('memory', 'exectl')));
  });

  test('a VM cgroup whose limits cannot be written is removed again', async () => {
    // A folder where a limit file should be: the write fails (EISDIR).
    await mkdir(join(vmDir('pids'), 'pids.max'), { recursive: true });
    await assert.rejects(VmCgroup.open(host, 'vm-1', LIMITS), { code: 'EISDIR' });
    assert.equal(existsSync(vmDir('memory')), false);
    assert.equal(existsSync(vmDir('pids')), false);
  });
});

describe('choosing the backend', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await createTempDir('cgd');
  });
  afterEach(() => dir.remove());

  test('a v1 controller missing and no v2 hierarchy: the problem names the controller', async () => {
    const sources = await fakeV1(dir, { mounts: ['memory', 'pids', 'cpu,cpuacct'] });
    assert.deepEqual(await detectCgroups(sources), {
      problem: 'no cgroup v2 hierarchy and no v1 controller freezer',
    });
  });
});
