// The cgroup v2 backend on a fake unified hierarchy in a temp folder: what it finds and
// enables, the files and values it writes, a memory cut below use refused with nothing changed,
// the freezer, usage read back, removal. As runc tests its fs2 manager.
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  MemoryInUse,
  VmCgroup,
  V1Cgroups,
  V2Cgroups,
  detectCgroups,
  type CgroupHost,
} from '../../../../src/service/vm/cgroups/index.js';
import { createTempDir, type TempDir } from '../../../helpers/tmp.js';
import { fakeV1, fakeV2, written } from './cgroup-fakes.js';

const MiB = 2 ** 20;
const LIMITS = { cpus: 2, memoryBytes: 512 * MiB, pids: 4096, diskBytes: 2 ** 30 };
const NONE = { cpus: null, memoryBytes: null, pids: null, diskBytes: null };

describe('cgroup v2 backend on a fake hierarchy', () => {
  let dir: TempDir;
  let host: CgroupHost;
  const vm = () => dir.join('unified', 'exectl', 'vm-1');
  const files = async (...names: string[]) =>
    Object.fromEntries(await Promise.all(names.map(async (n) => [n, await written(vm(), n)])));

  beforeEach(async () => {
    dir = await createTempDir('cg2');
    const found = await detectCgroups(await fakeV2(dir));
    assert.ok(found instanceof V2Cgroups, JSON.stringify(found));
    host = found;
  });
  afterEach(() => dir.remove());

  test('detect: v2 under <root>/exectl, memory, pids and cpu enabled down to it', async () => {
    assert.equal(host.kind, 'v2');
    assert.equal((host as V2Cgroups).parent, dir.join('unified', 'exectl'));
    assert.equal(
      await written(dir.join('unified'), 'cgroup.subtree_control'),
      '+memory +pids +cpu',
    );
    assert.equal(
      await written(dir.join('unified', 'exectl'), 'cgroup.subtree_control'),
      '+memory +pids +cpu',
    );
  });

  test('open: one folder, limits written; no swap beyond memory', async () => {
    const cgroup = await VmCgroup.open(host, 'vm-1', LIMITS);
    assert.deepEqual(cgroup.procsFiles, [join(vm(), 'cgroup.procs')]);
    assert.deepEqual(
      await files('memory.max', 'memory.high', 'memory.swap.max', 'pids.max', 'cpu.max'),
      {
        'memory.max': String(512 * MiB),
        'memory.high': 'max',
        'memory.swap.max': '0',
        'pids.max': '4096',
        'cpu.max': '200000 100000',
      },
    );
  });

  test('no limit is max everywhere, swap included', async () => {
    const cgroup = await VmCgroup.open(host, 'vm-1', LIMITS);
    await cgroup.apply(NONE);
    assert.deepEqual(
      await files('memory.max', 'memory.high', 'memory.swap.max', 'pids.max', 'cpu.max'),
      {
        'memory.max': 'max',
        'memory.high': 'max',
        'memory.swap.max': 'max',
        'pids.max': 'max',
        'cpu.max': 'max 100000',
      },
    );
  });

  test('memory cut below what the kernel could reclaim: MemoryInUse with the use, nothing changed', async () => {
    const cgroup = await VmCgroup.open(host, 'vm-1', LIMITS);
    // The kernel's answer after reclaiming down to memory.high: still 300 MiB in use.
    await writeFile(join(vm(), 'memory.current'), `${300 * MiB}\n`);
    const before = await files(
      'memory.max',
      'memory.high',
      'memory.swap.max',
      'pids.max',
      'cpu.max',
    );
    await assert.rejects(
      cgroup.apply({ ...LIMITS, memoryBytes: 128 * MiB, pids: 10, cpus: 1 }),
      (err: unknown) => err instanceof MemoryInUse && err.usedBytes === 300 * MiB,
    );
    assert.deepEqual(
      await files('memory.max', 'memory.high', 'memory.swap.max', 'pids.max', 'cpu.max'),
      before,
    );
    // Above what it uses, the cut applies.
    await cgroup.apply({ ...LIMITS, memoryBytes: 320 * MiB });
    assert.equal(await written(vm(), 'memory.max'), String(320 * MiB));
  });

  test('without swap accounting, memory.swap.max is left alone', async () => {
    const plain = await createTempDir('cg2');
    try {
      const found = await detectCgroups(await fakeV2(plain, { swapAccounting: false }));
      assert.ok(!('problem' in found));
      await VmCgroup.open(found, 'vm-1', LIMITS);
      const folder = plain.join('unified', 'exectl', 'vm-1');
      assert.equal(await written(folder, 'memory.max'), String(512 * MiB));
      assert.equal(await written(folder, 'memory.swap.max'), undefined);
    } finally {
      await plain.remove();
    }
  });

  test('freezer: cgroup.freeze 1, then 0', async () => {
    const cgroup = await VmCgroup.open(host, 'vm-1', LIMITS);
    await cgroup.freeze(true);
    assert.equal(await written(vm(), 'cgroup.freeze'), '1');
    await cgroup.freeze(false);
    assert.equal(await written(vm(), 'cgroup.freeze'), '0');
  });

  test('usage: memory.current, pids.current and cpu.stat usage_usec; null when unreadable', async () => {
    const cgroup = await VmCgroup.open(host, 'vm-1', LIMITS);
    assert.deepEqual(await cgroup.usage(), { memoryBytes: null, pids: null, cpuSeconds: null });
    await writeFile(join(vm(), 'memory.current'), '73400320\n');
    await writeFile(join(vm(), 'pids.current'), '7\n');
    await writeFile(
      join(vm(), 'cpu.stat'),
      'usage_usec 1250000\nuser_usec 1000000\nsystem_usec 250000\n',
    );
    assert.deepEqual(await cgroup.usage(), { memoryBytes: 73400320, pids: 7, cpuSeconds: 1.25 });
  });

  test('remove: the VM’s folder goes, the parent stays', async () => {
    const cgroup = await VmCgroup.open(host, 'vm-1', LIMITS);
    await cgroup.remove();
    assert.equal(existsSync(vm()), false);
    assert.ok(existsSync(dir.join('unified', 'exectl')));
  });
});

describe('choosing the v2 backend', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await createTempDir('cgd');
  });
  afterEach(() => dir.remove());

  test('a unified hierarchy without the pids controller: the problem names it', async () => {
    const sources = await fakeV2(dir, { controllers: 'cpuset cpu io memory' });
    assert.deepEqual(await detectCgroups(sources), {
      problem: 'cgroup v2 lacks the pids controller',
    });
  });

  test('v1 wins where every controller has a v1 hierarchy, even beside a unified one', async () => {
    // (Each fake writes the same mountinfo file: the unified line is read before v1's.)
    const v2 = await fakeV2(dir);
    const unifiedLine = await readFile(v2.mountinfo, 'utf8');
    const v1 = await fakeV1(dir);
    const mountinfo = dir.join('both');
    const text = unifiedLine + (await readFile(v1.mountinfo, 'utf8'));
    await writeFile(mountinfo, text);
    const found = await detectCgroups({ ...v1, mountinfo, root: v2.root });
    assert.ok(found instanceof V1Cgroups, JSON.stringify(found));
  });
});

describe('the backends agree', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await createTempDir('cga');
  });
  afterEach(() => dir.remove());

  // The drift issue 21 found: one backend let a VM swap past its limit, the other not.
  test('a memory limit allows no swap beyond it, on v1 and on v2', async () => {
    const v1 = await detectCgroups(await fakeV1(dir));
    const v2 = await detectCgroups(await fakeV2(dir));
    assert.ok(!('problem' in v1) && !('problem' in v2));
    await VmCgroup.open(v1, 'vm-1', LIMITS);
    await VmCgroup.open(v2, 'vm-1', LIMITS);
    const memory = dir.join('memory', 'exectl', 'vm-1');
    const unified = dir.join('unified', 'exectl', 'vm-1');
    const v1Swap =
      Number(await written(memory, 'memory.memsw.limit_in_bytes')) -
      Number(await written(memory, 'memory.limit_in_bytes'));
    assert.deepEqual([v1Swap, await written(unified, 'memory.swap.max')], [0, '0']);
  });
});
