// What a machine VM costs (issue 10; as root, the server's mode on a VM host), each against a
// bare bubblewrap sandbox spawned in the same run:
// - a command in a running VM (`ssh <vm> true` without HTTP: the runtime's exec) vs
//   `bwrap --unshare-all --ro-bind / / --proc /proc --dev /dev true`, p50: target ≤ 1.5×;
// - from `new` to the VM's first command (disk image, id range, cgroup, network, boot) vs the
//   same bare spawn, p50: target ≤ 8×;
// - memory the host spends per idle VM (PSS of every host process it keeps: its bwrap, its init,
//   slirp4netns; no relay, and no door helper once idle): target ≤ 8 MiB;
// - disk a fresh VM spends on the host once stopped (its image's allocated blocks: file system
//   metadata, root file system layers, home; and its id-range record): target ≤ 1 MiB
//   (issue 12). Baseline: the 10 GiB the VM may grow to.
import { spawnSync } from 'node:child_process';
import type { Socket } from 'node:net';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectSandboxMode } from '../src/service/vm/runtime-choice/detect-runtime.js';
import { createRuntime } from '../src/service/vm/runtime-choice/create-runtime.js';
import type { VmSpec } from '../src/service/vm/runtime.js';
import { median } from './lib/stats.js';

if (process.getuid?.() !== 0) {
  console.log('machine: skipped — machine VMs need the server to run as root');
  process.exit(0);
}

const ROUNDS = 60;
const p50 = median;
const timed = async (work: () => unknown) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

const runDir = mkdtempSync(join(tmpdir(), 'exectl-run-'));
const dataDir = mkdtempSync(join(tmpdir(), 'exectl-bench-'));
// As in a server: the HTTP and reflection listeners are shown inside every VM.
const inbound = [
  { host: '127.0.0.1', port: 7070, accept: (socket: Socket) => socket.destroy() },
  { host: '127.0.0.1', port: 7071, accept: (socket: Socket) => socket.destroy() },
];
const found = await detectSandboxMode({ runDir, inbound: () => inbound });
if ('problem' in found) throw new Error(found.problem);
const runtime = createRuntime('bwrap', found.mode);
let made = 0;
const spec = (): VmSpec => ({
  name: `bench-${made}`,
  diskDir: join(dataDir, String(++made)),
  env: {},
});

try {
  // Interleaved, so a busy moment of the machine weighs on both sides alike.
  const bareArgs = [
    '--unshare-all',
    '--ro-bind',
    '/',
    '/',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    'true',
  ];
  const bareSpawn = () => timed(() => spawnSync('bwrap', bareArgs));
  const vm = spec();
  await runtime.create(vm);
  await runtime.exec(vm, 'true');
  const bare: number[] = [];
  const command: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    bare.push(await bareSpawn());
    command.push(await timed(() => runtime.exec(vm, 'true')));
  }
  const bareForNew: number[] = [];
  const firstCommand: number[] = [];
  for (let i = 0; i < 15; i++) {
    const fresh = spec();
    bareForNew.push(await bareSpawn());
    firstCommand.push(
      await timed(async () => {
        await runtime.create(fresh);
        await runtime.exec(fresh, 'true');
      }),
    );
  }

  const baseline = p50(bare);
  const ratio = (x: number, base = baseline) => (x / base).toFixed(2);
  console.log(`machine: bare bwrap spawn           p50 ${baseline.toFixed(1)} ms`);
  console.log(
    `machine: command in a running VM    p50 ${p50(command).toFixed(1)} ms = ${ratio(p50(command))}× bare (target ≤ 1.5×)`,
  );
  console.log(
    `machine: new → first command        p50 ${p50(firstCommand).toFixed(1)} ms = ${ratio(p50(firstCommand), p50(bareForNew))}× bare (target ≤ 8×)`,
  );
  // The idle VMs made above are running now: every host process they keep is a descendant of this one.
  const perVm = descendantsPss(process.pid) / made;
  console.log(
    `machine: memory per idle VM         ${(perVm / 1024).toFixed(2)} MiB PSS (target ≤ 8 MiB)`,
  );
  await runtime.shutdown();
  // Stopped, so the images are unmounted and everything is on disk.
  const spent = Array.from({ length: made - 1 }, (_, i) =>
    allocatedBytes(join(dataDir, String(i + 2))),
  );
  console.log(
    `machine: disk per fresh VM (stopped) p50 ${(p50(spent) / 1024).toFixed(0)} KiB, max ${(Math.max(...spent) / 1024).toFixed(0)} KiB of a 10 GiB disk (target ≤ 1024 KiB)`,
  );
} finally {
  await runtime.shutdown();
  for (let i = 1; i <= made; i++)
    await runtime.remove({ name: `bench-${i}`, diskDir: join(dataDir, String(i)), env: {} });
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(runDir, { recursive: true, force: true });
}

/** The PSS in KiB of every descendant of `root`. */
function descendantsPss(root: number): number {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    const stat = safeRead(`/proc/${name}/stat`);
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(Number(name), ppid);
  }
  const isDescendant = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p))
      if (p === root) return true;
    return false;
  };
  let total = 0;
  for (const pid of parents.keys()) {
    if (!isDescendant(pid)) continue;
    const rollup = safeRead(`/proc/${pid}/smaps_rollup`);
    total += Number(/^Pss:\s+(\d+) kB$/m.exec(rollup)?.[1] ?? 0);
  }
  return total;
}

/** Bytes the host's file system holds for the files of `dir` (allocated blocks, not sizes). */
function allocatedBytes(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).blocks * 512, 0);
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
