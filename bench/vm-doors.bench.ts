// A machine VM's way out to the server (issue 22; as root): `curl $EXECTL_REFLECTION_URL/` from
// inside a VM, through the reflection listener the server accepts on inside the VM's own
// network, against the same curl from the host to the same listener, in interleaved rounds.
// Each figure is curl's own `time_total` (connect, request, answer), so the processes' start
// costs on either side are left out. Target: VM p50 ≤ 1.5× host p50.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { FAR } from '../test/integration/proxy/fixture.js';
import { startTestService } from '../test/helpers/service.js';
import { median } from './lib/stats.js';

if (process.getuid?.() !== 0) {
  console.log('vm-doors: skipped — machine VMs need the server to run as root');
  process.exit(0);
}

const ROUNDS = 6;
const PER_ROUND = 40;
const svc = await startTestService({ runtime: 'bwrap', commandDeadlineMs: 30_000 });
try {
  const token = await svc.token(`{"exp":${FAR},"cmds":["new","ssh"]}`);
  const exec = async (line: string) => {
    const res = await fetch(`${svc.url}/exec`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: line,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${line}: ${res.status} ${text}`);
    return text;
  };
  await exec('new --name doors');
  const url = (await exec('ssh doors printenv EXECTL_REFLECTION_URL')).trim();
  const loop = `for i in $(seq 1 ${PER_ROUND}); do curl -s -o /dev/null -w '%{time_total}\\n' "${url}/"; done`;
  const times = (text: string) => text.trim().split('\n').map(Number);
  const host: number[] = [];
  const vm: number[] = [];
  // Warm-up: both sides once (JIT, the VM's first connection).
  await exec(`ssh doors curl -s -o /dev/null ${url}/`);
  for (let round = 0; round < ROUNDS; round++) {
    // (Not spawnSync: the listener it calls runs in this process.)
    host.push(...times((await promisify(execFile)('/bin/sh', ['-c', loop])).stdout));
    // (Quoted for the service's lexer: the VM's shell gets the loop as written.)
    vm.push(...times(await exec(`ssh doors ${JSON.stringify(loop)}`)));
  }
  const ms = (s: number) => (s * 1000).toFixed(2);
  const ratio = median(vm) / median(host);
  console.log(`vm-doors: host curl reflection/   p50 ${ms(median(host))} ms`);
  console.log(
    `vm-doors: in-VM curl reflection/  p50 ${ms(median(vm))} ms = ${ratio.toFixed(2)}× host (target ≤ 1.5×)`,
  );
} finally {
  await svc.stop();
}
