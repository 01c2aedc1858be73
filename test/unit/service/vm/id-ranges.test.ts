// Id ranges are claimed host-wide, never twice, kept by their VM, and given back on removal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import {
  EXECTL_IDS,
  IDS_PER_VM,
  idBaseOf,
  networkHelperId,
  releaseIdRange,
  takenHostIds,
} from '../../../../src/service/vm/id-ranges.js';

async function folders(n: number) {
  const root = mkdtempSync(join(tmpdir(), 'exectl-ids-'));
  const disks = Array.from({ length: n }, (_, i) => join(root, 'vms', String(i)));
  for (const disk of disks) await mkdir(disk, { recursive: true });
  return { root, registry: join(root, 'registry'), disks };
}

test('concurrent claims get ranges of their own, clear of every host user and delegated id', async () => {
  const { root, registry, disks } = await folders(20);
  try {
    const bases = await Promise.all(disks.map((disk) => idBaseOf(disk, registry)));
    const sorted = [...bases].sort((a, b) => a - b);
    for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i]! - sorted[i - 1]! >= IDS_PER_VM);
    for (const [a, b] of await takenHostIds()) {
      for (const base of bases) assert.ok(b <= base || a >= base + IDS_PER_VM, `${a}-${b}`);
    }
    assert.equal((await readdir(registry)).length, 20);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('a VM keeps its range; a removed one gives it back; a wiped claim is taken again', async () => {
  const { root, registry, disks } = await folders(2);
  try {
    const first = await idBaseOf(disks[0]!, registry);
    assert.equal(await idBaseOf(disks[0]!, registry), first);
    assert.equal(await readFile(join(disks[0]!, 'id-range'), 'utf8'), `${first}\n`);
    await releaseIdRange(disks[0]!, registry);
    assert.deepEqual(await readdir(registry), []);
    // The claim file went missing (a wiped registry): the VM claims its recorded range again.
    assert.equal(await idBaseOf(disks[0]!, registry), first);
    assert.equal((await readdir(registry)).length, 1);
    const second = await idBaseOf(disks[1]!, registry);
    assert.notEqual(second, first);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('each range’s network helper id is its own, below every range, inside exectl’s ids', () => {
  const first = 0x10000000;
  const last = EXECTL_IDS[1] + 1 - IDS_PER_VM;
  assert.equal(networkHelperId(first), first - IDS_PER_VM);
  assert.equal(networkHelperId(first + IDS_PER_VM), first - IDS_PER_VM + 1);
  assert.equal(networkHelperId(last), first - IDS_PER_VM + (last - first) / IDS_PER_VM);
  assert.ok(networkHelperId(last) < first);
  assert.equal(EXECTL_IDS[0], networkHelperId(first));
});
