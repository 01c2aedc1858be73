// The arithmetic of the data folder's floor (SPEC §7): how much each running VM may still write.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { humanBytes } from '../../../../../src/service/rules/limit-values.js';
import {
  allowances,
  diskFloor,
  netFree,
  type VmDiskUse,
} from '../../../../../src/service/vm/disk/budget.js';

const M = 2 ** 20;
const G = 2 ** 30;

const FLOORS: readonly [number, number][] = [
  [700 * M, 70 * M], // a tenth of a small disk, not 1 GiB
  [10 * G, G], // 1 GiB
  [100 * G, 5 * G], // 5 %
  [1000 * G, 50 * G],
];
for (const [size, floor] of FLOORS) {
  test(`the floor of a ${humanBytes(size)} file system is ${humanBytes(floor)}`, () => {
    assert.equal(diskFloor(size), floor);
  });
}

const vm = (usedBytes: number, allocatedBytes: number, baseBytes = allocatedBytes): VmDiskUse => ({
  usedBytes,
  allocatedBytes,
  baseBytes,
});

test('net free space counts what VMs hold but have not written out, never what they freed', () => {
  assert.equal(netFree(500 * M, [vm(300 * M, 100 * M), vm(10 * M, 50 * M)]), 300 * M);
});

// [what, net free, floor, VMs, allowances]
const CASES: readonly [string, number, number, VmDiskUse[], number[]][] = [
  ['no VM', 500 * M, 100 * M, [], []],
  ['one VM above the floor: all down to the reserve', 500 * M, 100 * M, [vm(0, 0)], [450 * M]],
  [
    'two VMs above the floor: halves of the space over the floor, a band slice each',
    500 * M,
    100 * M,
    [vm(0, 0), vm(0, 0)],
    [225 * M, 225 * M],
  ],
  [
    'under the floor: the VM that took its slice gets nothing, the other keeps its own',
    70 * M,
    100 * M,
    [vm(400 * M, 400 * M, 370 * M), vm(20 * M, 20 * M)],
    [0, 20 * M],
  ],
  [
    'under the floor: a partly used slice leaves its rest',
    90 * M,
    100 * M,
    [vm(110 * M, 110 * M, 100 * M), vm(0, 0)],
    [15 * M, 25 * M],
  ],
  [
    'never more in all than lies above the reserve',
    55 * M,
    100 * M,
    [vm(0, 0), vm(0, 0)],
    [2.5 * M, 2.5 * M],
  ],
  ['at or under the reserve: nothing', 40 * M, 100 * M, [vm(0, 0), vm(0, 0)], [0, 0]],
];
for (const [what, free, floor, vms, expected] of CASES) {
  test(`allowances: ${what}`, () => {
    const got = allowances(free, floor, vms);
    assert.deepEqual(got, expected);
    assert.ok(got.reduce((a, b) => a + b, 0) <= Math.max(0, free - floor / 2));
  });
}
