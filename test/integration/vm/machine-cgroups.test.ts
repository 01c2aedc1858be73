// Every process of a machine VM's command is in the VM's cgroups, in every controller, from its
// very first instruction of the user's: the server moves the in-VM launcher there before it
// sends the payload (payload-gate.ts). As root, as CI runs the tests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { VmSpec } from '../../../src/service/vm/index.js';
import { hostPidsWith, openVmFixture, uniqueMarker, type VmFixture } from './fixture.js';

describe('machine VMs: a command runs in its VM’s cgroups', () => {
  let fx: VmFixture;
  let vm: VmSpec;

  before(async () => {
    fx = await openVmFixture('bwrap');
    vm = await fx.create('limited');
  });
  after(() => fx.close());

  test('the command itself and what it leaves running share the cgroups of the VM’s init', async () => {
    const marker = uniqueMarker();
    const ran = await fx.run(
      vm,
      `cat /proc/self/cgroup; setsid sleep ${marker} > /dev/null 2>&1 &`,
    );
    const [sleeper] = await hostPidsWith(`sleep ${marker}`);
    assert.ok(sleeper !== undefined);
    const status = await readFile(`/proc/${sleeper}/status`, 'utf8');
    const init = Number(/^PPid:\s+(\d+)$/m.exec(status)![1]);
    const initCgroups = await readFile(`/proc/${init}/cgroup`, 'utf8');
    for (const controller of ['memory', 'pids', 'cpu', 'cpuacct', 'freezer']) {
      const line = initCgroups.split('\n').find((l) => l.split(':')[1] === controller);
      assert.match(line ?? '', /:\/.*exectl\/vm-[0-9a-f]+$/, `init in its ${controller} cgroup`);
    }
    assert.equal(ran.output, initCgroups);
    assert.equal(await readFile(`/proc/${sleeper}/cgroup`, 'utf8'), initCgroups);
  });
});
