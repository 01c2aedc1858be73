// `cp` of a VM (issue 12; as root, the server's mode on a VM host): a running machine VM whose
// disk holds 100 MB (100 files of 1 MiB and 1000 small ones) copied to a new VM — its image
// copied sparse while frozen, then every owner moved to the copy's id range — vs `cp -a` of a
// host folder with the same files, interleaved in the same run, p50: target ≤ 1.5×.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectSandboxMode } from '../src/service/vm/runtime-choice/detect-runtime.js';
import { createRuntime } from '../src/service/vm/runtime-choice/create-runtime.js';
import type { VmSpec } from '../src/service/vm/runtime.js';
import { median } from './lib/stats.js';

if (process.getuid?.() !== 0) {
  console.log('vm-copy: skipped — machine VMs need the server to run as root');
  process.exit(0);
}

const ROUNDS = 7;
const p50 = median;
const timed = async (work: () => unknown) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};
// The same files inside the VM and on the host.
const FILL =
  'mkdir -p data/small && for i in $(seq 1 100); do head -c 1048576 /dev/urandom > data/big-$i; done && ' +
  'for i in $(seq 1 1000); do echo "file $i" > data/small/$i; done';

const runDir = mkdtempSync(join(tmpdir(), 'exectl-run-'));
const dataDir = mkdtempSync(join(tmpdir(), 'exectl-bench-'));
const found = await detectSandboxMode({ runDir, inbound: () => [] });
if ('problem' in found) throw new Error(found.problem);
const runtime = createRuntime('bwrap', found.mode);
const vms: VmSpec[] = [];
const spec = (): VmSpec => {
  const vm = {
    name: `copy-${vms.length}`,
    diskDir: join(dataDir, String(vms.length + 1)),
    env: {},
  };
  vms.push(vm);
  return vm;
};

try {
  const source = spec();
  await runtime.create(source);
  const filled = await runtime.exec(source, FILL);
  if (filled.exitCode !== 0) throw new Error(`filling the VM failed: ${filled.exitCode}`);
  const host = join(dataDir, 'host');
  const made = spawnSync('/bin/sh', ['-c', `mkdir -p ${host} && cd ${host} && ${FILL}`]);
  if (made.status !== 0) throw new Error(`filling the host folder failed: ${made.stderr}`);

  const copies: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const target = join(dataDir, `host-copy-${i}`);
    baseline.push(await timed(() => spawnSync('cp', ['-a', host, target])));
    copies.push(await timed(() => runtime.copy(source, spec())));
  }
  const base = p50(baseline);
  const ratio = (p50(copies) / base).toFixed(2);
  console.log(`vm-copy: cp -a of the host folder   p50 ${base.toFixed(1)} ms`);
  console.log(
    `vm-copy: cp of the VM (100 MB)      p50 ${p50(copies).toFixed(1)} ms = ${ratio}× cp -a (target ≤ 1.5×)`,
  );
} finally {
  await runtime.shutdown();
  for (const vm of vms) await runtime.remove(vm);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(runDir, { recursive: true, force: true });
}
