// Every process of a machine VM's command is in the VM's cgroups, in every controller, from the
// first instruction of any program of the VM's: a host-side shell joins them before nsenter
// (sandbox/join-command.ts). Anything of the VM's that ran before the join (its /bin/sh, its ld.so, its
// /etc/ld.so.preload) could fork out of the VM's limits and freezer. As root, as CI runs the tests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { VmSpec } from '../../../src/service/vm/index.js';
import {
  hostPidsWith,
  hostSleeper,
  openVmFixture,
  uniqueMarker,
  type VmFixture,
} from './fixture.js';

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
    const sleeper = await hostSleeper(marker);
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

  test('a /bin/sh of the VM’s that forks at once cannot leave the VM’s cgroups', async () => {
    const hostile = await fx.create('hostile');
    const marker = uniqueMarker();
    // VM root may replace its own shell: the one the in-VM launcher runs for every command.
    const replaced = await fx.run(
      hostile,
      [
        'cp /usr/bin/dash /usr/bin/dash.real',
        `printf '#!/usr/bin/dash.real\\n/usr/bin/setsid /usr/bin/sleep ${marker} >/dev/null 2>&1 &\\nexec /usr/bin/dash.real "$@"\\n' > /usr/bin/sh.new`,
        'chmod 755 /usr/bin/sh.new && mv /usr/bin/sh.new /usr/bin/sh',
      ].join(' && '),
    );
    assert.equal(replaced.exitCode, 0, replaced.output);
    for (let i = 0; i < 10; i++) assert.equal((await fx.run(hostile, 'true')).exitCode, 0);
    const sleepers = await hostPidsWith(`sleep ${marker}`);
    assert.ok(sleepers.length >= 10, `${sleepers.length} sleepers`);
    const cgroupsOf = (pid: number) => readFile(`/proc/${pid}/cgroup`, 'utf8');
    const init = Number(
      /^PPid:\s+(\d+)$/m.exec(await readFile(`/proc/${sleepers[0]}/status`, 'utf8'))![1],
    );
    const expected = await cgroupsOf(init);
    assert.match(expected, /exectl\/vm-/);
    for (const pid of sleepers) assert.equal(await cgroupsOf(pid), expected, `sleeper ${pid}`);
    await fx.runtime.remove(hostile);
  });
});
