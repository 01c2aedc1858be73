// The parent cgroup of every VM leaves the host a reserve (SPEC §7): on fake v1 and v2
// hierarchies, what detection writes into the parent (pids at most 80 % of pid_max, memory at
// most the host's less 1 GiB, no swap beyond it), the share's arithmetic, and a host whose
// pid_max cannot be read. A real fork bomb in several VMs: test/integration/vm/vms-share.test.ts.
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { detectCgroups, vmsShareOf } from '../../../../src/service/vm/cgroups/index.js';
import { createTempDir, type TempDir } from '../../../helpers/tmp.js';
import { FAKE_MEM_TOTAL_KIB, FAKE_PID_MAX, fakeV1, fakeV2, written } from './cgroup-fakes.js';

const GiB = 2 ** 30;
const SHARE_PIDS = String(Math.floor(FAKE_PID_MAX * 0.8));
const SHARE_MEMORY = String(FAKE_MEM_TOTAL_KIB * 1024 - GiB);

describe('the VMs’ parent cgroup leaves the host a reserve', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await createTempDir('cgp');
  });
  afterEach(() => dir.remove());

  test('v1: pids.max and memory (memory+swap alike) of the exectl parent', async () => {
    const found = await detectCgroups(await fakeV1(dir));
    assert.ok(!('problem' in found), JSON.stringify(found));
    const memory = dir.join('memory', 'exectl');
    assert.deepEqual(
      {
        pids: await written(dir.join('pids', 'exectl'), 'pids.max'),
        memory: await written(memory, 'memory.limit_in_bytes'),
        memsw: await written(memory, 'memory.memsw.limit_in_bytes'),
      },
      { pids: SHARE_PIDS, memory: SHARE_MEMORY, memsw: SHARE_MEMORY },
    );
    assert.equal(SHARE_PIDS, '26214');
  });

  test('v2: pids.max, memory.max and no swap in the exectl parent', async () => {
    const found = await detectCgroups(await fakeV2(dir));
    assert.ok(!('problem' in found), JSON.stringify(found));
    const parent = dir.join('unified', 'exectl');
    assert.deepEqual(
      {
        pids: await written(parent, 'pids.max'),
        memory: await written(parent, 'memory.max'),
        high: await written(parent, 'memory.high'),
        swap: await written(parent, 'memory.swap.max'),
      },
      { pids: SHARE_PIDS, memory: SHARE_MEMORY, high: 'max', swap: '0' },
    );
  });

  test('a host whose pid_max cannot be read gets no limits, and the problem says why', async () => {
    const sources = await fakeV2(dir);
    await writeFile(sources.pidMax, 'garbage\n');
    assert.deepEqual(await detectCgroups(sources), {
      problem: `cannot read ${sources.pidMax} or the MemTotal of ${sources.meminfo}`,
    });
  });

  test('a parent whose limit cannot be written: no limits, and the problem names the error', async () => {
    const sources = await fakeV1(dir);
    // A folder where the parent's limit file should be: the write fails (EISDIR).
    await mkdir(dir.join('pids', 'exectl', 'pids.max'));
    assert.deepEqual(await detectCgroups(sources), {
      problem: 'the parent cgroup of the VMs cannot be limited (EISDIR)',
    });
  });
});

describe('the VMs’ share of a host', () => {
  const table: Array<{ pidMax: number; memGiB: number; pids: number; memoryGiB: number }> = [
    { pidMax: 32768, memGiB: 24, pids: 26214, memoryGiB: 23 },
    { pidMax: 4194304, memGiB: 256, pids: 3355443, memoryGiB: 255 },
    { pidMax: 32768, memGiB: 4, pids: 26214, memoryGiB: 3 },
    // A host of 2 GiB or less keeps half.
    { pidMax: 1000, memGiB: 2, pids: 800, memoryGiB: 1 },
    { pidMax: 10, memGiB: 1, pids: 8, memoryGiB: 0.5 },
  ];
  for (const row of table) {
    test(`pid_max ${row.pidMax}, ${row.memGiB} GiB → ${row.pids} pids, ${row.memoryGiB} GiB`, () => {
      assert.deepEqual(vmsShareOf(row.pidMax, row.memGiB * GiB), {
        pids: row.pids,
        memoryBytes: row.memoryGiB * GiB,
      });
    });
  }
});
