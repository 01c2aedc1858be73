// The host processes a machine VM makes the host run for it (SPEC §7): its network helper
// (slirp4netns) and its door helper run inside that VM's own cgroups, every controller, so their
// CPU and memory count against the VM's limits, not the server's: a VM resized to 1 CPU stays
// within about 1 CPU however hard it drives its network. As root, as CI runs the tests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_VM_LIMITS, type VmSpec } from '../../../src/service/vm/index.js';
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

  test('a VM resized to 1 CPU cannot use ~2 cores through its network helper', async (t) => {
    const capped = { ...vm, limits: { ...DEFAULT_VM_LIMITS, cpus: 1 } };
    await fx.runtime.resize(capped);
    const slirps = [];
    for (const pid of await hostPrograms('slirp4netns')) {
      if ((await cgroupsOf(pid)) === vmCgroups) slirps.push(pid);
    }
    // The VM's slirp4netns, found by its cgroup (none is found where it runs elsewhere).
    const [slirp] = slirps;
    const slirpSeconds = async () => {
      if (slirp === undefined) return 0;
      const stat = await readFile(`/proc/${slirp}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    };
    // Two CPU hogs and two UDP floods to 10.0.2.2 (the host's loopback through slirp4netns),
    // which slirp4netns reads off the VM's tap and drops (--disable-host-loopback): the work of
    // every packet is slirp4netns's, on the host side.
    const flood =
      'import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\nwhile True:\n  try: s.sendto(b"x" * 1400, ("10.0.2.2", 9))\n  except OSError: pass\n';
    const started = await fx.run(
      vm,
      `printf '${flood}' > flood.py && (setsid sh -c 'yes > /dev/null & yes > /dev/null & python3 flood.py & python3 flood.py & wait' > /dev/null 2>&1 &)`,
    );
    assert.equal(started.exitCode, 0, started.output);
    try {
      await sleep(1_000);
      const cpu = async () => (await fx.runtime.stat(capped)).usage.cpuSeconds ?? NaN;
      const [vmBefore, slirpBefore, at] = [await cpu(), await slirpSeconds(), Date.now()];
      await sleep(5_000);
      const [vmAfter, slirpAfter] = [await cpu(), await slirpSeconds()];
      const wall = (Date.now() - at) / 1000;
      const used = (vmAfter - vmBefore) / wall;
      assert.ok(slirpAfter > slirpBefore, `slirp4netns worked ${slirpAfter - slirpBefore} s`);
      t.diagnostic(
        `VM and helper ${used.toFixed(2)} CPUs; slirp4netns ${(slirpAfter - slirpBefore).toFixed(2)} s of ${wall.toFixed(1)} s`,
      );
      // The VM's cgroup counts slirp4netns's CPU too (it is a member): all of it within ~1 CPU.
      assert.ok(used <= 1.25, `the VM and its helper used ${used.toFixed(2)} CPUs`);
    } finally {
      await fx.run(vm, 'pkill -f flood.py; pkill yes; true');
    }
  });
});
