// What a machine VM leaves on the host when it stops (as root, as CI runs the tests): its
// network program (slirp4netns, which the launcher starts) ends with it, and its disk
// image is detached from its loop device. A helper left in the launcher's mount namespace
// would keep the image mounted: a restart would then mount one ext4 image twice.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { open, readdir, readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRuntime } from '../../../src/service/vm/runtime-choice/create-runtime.js';
import { detectSandboxMode } from '../../../src/service/vm/runtime-choice/detect-runtime.js';
import type { VmRuntime, VmSpec } from '../../../src/service/vm/index.js';
import { hostPidsWith, newRunDir } from './fixture.js';

describe('a machine VM leaves no helper running and no image attached once stopped', () => {
  let runtime: VmRuntime;
  // slirp4netns under a name of this test's: its processes are told from other tests' VMs'.
  let slirp: string;
  let dataDir: string;
  const vm = (): VmSpec => ({ name: 'teardown', diskDir: join(dataDir, 'teardown'), env: {} });

  before(async () => {
    const runDir = newRunDir();
    dataDir = mkdtempSync(join(tmpdir(), 'exectl-teardown-'));
    // As the server's listeners do: each connection a VM opens is handed over.
    const inbound = [
      { host: '127.0.0.1', port: 7070, accept: (socket: Socket) => socket.end('pong\n') },
    ];
    const found = await detectSandboxMode({ runDir, inbound: () => inbound });
    if ('problem' in found) throw new Error(found.problem);
    assert.equal(found.mode.kind, 'machine', 'these tests run as root');
    slirp = join(dataDir, 'slirp4netns');
    symlinkSync(found.mode.tools.slirp4netns, slirp);
    (found.mode.tools as { slirp4netns: string }).slirp4netns = slirp;
    runtime = createRuntime('bwrap', found.mode);
  });
  after(async () => {
    await runtime.shutdown();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('restart ends the old helpers and loop device; rm ends all of them', async () => {
    await runtime.create(vm());
    const image = resolve(vm().diskDir, 'disk.img');
    // A connection from inside the VM to the server's listener there.
    const call =
      "python3 -c \"import socket; print(socket.create_connection(('127.0.0.1', 7070)).recv(9).decode(), end='')\"";
    assert.equal(await output(runtime, vm(), call), 'pong\n');
    const first = await helpersOf(vm().name);
    assert.deepEqual(first.map((h) => h.name).sort(), ['slirp4netns']);
    assert.equal((await loopsBacking(image)).length, 1);

    await runtime.restart(vm());
    assert.equal(await output(runtime, vm(), call), 'pong\n');
    await until(async () => first.every((h) => !alive(h.pid)));
    const second = await helpersOf(vm().name);
    assert.deepEqual(second.map((h) => h.name).sort(), ['slirp4netns']);
    await until(async () => (await loopsBacking(image)).length === 1);

    await runtime.remove(vm());
    await until(async () => second.every((h) => !alive(h.pid)));
    await until(async () => (await loopsBacking(image)).length === 0);
  });

  // The launcher starts the network, then mounts the disk: when that fails, the network ends.
  test('a boot that fails once the network is up leaves no network program running', async () => {
    const broken: VmSpec = { name: 'broken', diskDir: join(dataDir, 'broken'), env: {} };
    await runtime.create(broken);
    const image = await open(join(broken.diskDir, 'disk.img'), 'r+');
    await image.write(Buffer.alloc(64 * 1024), 0, 64 * 1024, 0);
    await image.close();
    await assert.rejects(runtime.exec(broken, 'true'), /could not start the sandbox/);
    await until(async () => (await hostPidsWith(slirp)).length === 0);
    await runtime.remove(broken);
  });
});

async function output(runtime: VmRuntime, vm: VmSpec, command: string): Promise<string> {
  let text = '';
  const result = await runtime.exec(vm, command, { onOutput: (c) => void (text += c) });
  assert.equal(result.exitCode, 0, text);
  return text;
}

/** The helpers of the VM named `name` (network, holder): children of its launcher (now its bwrap). */
async function helpersOf(name: string): Promise<{ pid: number; name: string }[]> {
  const [launcher] = await hostPidsWith(`--hostname ${name} `);
  assert.ok(launcher !== undefined, `no bwrap runs for ${name}`);
  const helpers = [];
  for (const pid of (await readdir('/proc')).filter((n) => /^\d+$/.test(n))) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(parent) !== launcher || state === 'Z') continue;
    const comm = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
    // (The holder, a `sleep`, must be gone once the VM has booted.)
    if (['slirp4netns', 'sleep'].includes(comm)) helpers.push({ pid: Number(pid), name: comm });
  }
  return helpers;
}

/** False once the process has ended (a zombie has ended: only its parent's bookkeeping is left). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The loop devices whose backing file is `image` (deleted or not). */
async function loopsBacking(image: string): Promise<string[]> {
  const devices = (await readdir('/sys/block')).filter((n) => n.startsWith('loop'));
  const backing = await Promise.all(
    devices.map((d) => readFile(`/sys/block/${d}/loop/backing_file`, 'utf8').catch(() => '')),
  );
  return devices.filter((_, i) => backing[i]!.trim().replace(/ \(deleted\)$/, '') === image);
}

async function until(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `still not so after ${timeoutMs} ms: ${check.toString()}`);
    await sleep(20);
  }
}
