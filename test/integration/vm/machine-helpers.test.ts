// The host processes a machine VM makes the host run for it (SPEC §7): its network helper
// (slirp4netns) and its door helper run inside that VM's own cgroups, every controller, so their
// CPU and memory count against the VM's limits, not the server's. As root, as CI runs the tests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { VmSpec } from '../../../src/service/vm/index.js';
import { hostSleeper, openVmFixture, uniqueMarker, type VmFixture } from './fixture.js';

/** The cgroups of a host process, as /proc shows them ('' once it is gone). */
const cgroupsOf = (pid: number) => readFile(`/proc/${pid}/cgroup`, 'utf8').catch(() => '');

/** Host pids whose argv[0] ends in `program` and whose command line has `text`. */
async function hostPrograms(program: string, text = ''): Promise<number[]> {
  const found: number[] = [];
  for (const name of (await readdir('/proc')).filter((n) => /^\d+$/.test(n))) {
    const argv = (await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (argv[0]?.endsWith(program) && argv.join(' ').includes(text)) found.push(Number(name));
  }
  return found;
}

describe('machine VMs: their helpers run in the VM’s cgroups', () => {
  let fx: VmFixture;
  let vm: VmSpec;
  /** The cgroups of the VM's init, as /proc/<pid>/cgroup writes them. */
  let vmCgroups: string;

  before(async () => {
    fx = await openVmFixture('bwrap');
    vm = await fx.create('helped');
    const marker = uniqueMarker();
    await fx.run(vm, `setsid sleep ${marker} > /dev/null 2>&1 &`);
    vmCgroups = await cgroupsOf(await hostSleeper(marker));
    assert.match(vmCgroups, /exectl\/vm-[0-9a-f]+$/m);
  });
  after(() => fx.close());

  test('the VM’s slirp4netns is in the VM’s cgroups', async () => {
    const inVm = [];
    for (const pid of await hostPrograms('slirp4netns')) {
      if ((await cgroupsOf(pid)) === vmCgroups) inVm.push(pid);
    }
    assert.equal(inVm.length, 1, `slirp4netns processes in the VM's cgroups: ${inVm.length}`);
  });

  test('the door helper a connection into the VM starts is in the VM’s cgroups', async () => {
    const listening = await fx.run(
      vm,
      'setsid python3 -c "import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((\'127.0.0.1\', 8123)); s.listen(); time.sleep(120)" > /dev/null 2>&1 &',
    );
    assert.equal(listening.exitCode, 0);
    // The listener may take a moment to bind on a loaded host.
    let socket;
    for (let i = 0; socket === undefined; i++) {
      socket = await fx.runtime.connect(vm, 8123).catch((err: unknown) => {
        if (i > 100) throw err;
        return undefined;
      });
      if (socket === undefined) await sleep(100);
    }
    // The helper stays a few seconds once idle: it is found while it waits.
    const helpers = await hostPrograms('node', 'netns-door.cjs');
    socket.destroy();
    const ours = [];
    for (const pid of helpers) if ((await cgroupsOf(pid)) === vmCgroups) ours.push(pid);
    assert.equal(
      ours.length,
      1,
      `door helpers in the VM's cgroups: ${ours.length} of ${helpers.length}`,
    );
  });
});
