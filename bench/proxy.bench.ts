// VM proxy throughput (issues 11, 24): a node:http server inside a VM (bench/servers/plain-http.mjs),
// reached through the proxy with a VM token over 20 keep-alive connections, against the same
// server run bare on the host, and against nginx (one worker, keep-alive upstream: what an
// operator would put in front) proxying to that bare server. All measured in this run, in
// interleaved rounds, by the in-process generator and by wrk with one thread. Targets: proxy ≥
// 0.5 of bare, and ≥ 0.75 of nginx. As root the VM is a machine (its own network, reached
// through `VmMachines.connect`, a connection made inside it), as the server runs on a VM host. Needs `npm run build` first,
// wrk (`apt-get install -y wrk`) and nginx (`apt-get install -y nginx-light`); without them,
// their figures are skipped with a message.
import { mintSvc0 } from '../src/token/mint.js';
import { createMemorySigner } from '../test/helpers/signers.js';
import { fmt, loadTest, startServer, type LoadResult } from './lib/load.js';
import { nginxPath, startNginx } from './lib/nginx.js';
import { hasWrk, runWrk } from './lib/wrk.js';

const CONNECTIONS = 20;
const DURATION_MS = 3000;
const ROUNDS = 3;
const VM_PORT = 8080;
const TARGET_VS_BARE = 0.5;
const TARGET_VS_NGINX = 0.75;

const signer = createMemorySigner('ed25519');
const vmToken = await mintSvc0(`{"exp":4000000000}`, signer, 'v0@vm1.localhost');
const script = (name: string) => new URL(name, import.meta.url).pathname;
const bare = await startServer(script('./servers/plain-http.mjs'));
const service = await startServer(script('./servers/exec-service.mjs'), [
  JSON.stringify({
    publicKey: signer.publicKey.toOpenSsh(),
    fingerprint: signer.publicKey.fingerprint,
    keyType: signer.publicKey.type,
    runtime: process.getuid?.() === 0 ? 'bwrap' : 'process',
    vm: 'vm1',
    vmServer: VM_PORT,
  }),
]);
const nginxBinary = nginxPath();
const nginx = nginxBinary === null ? null : await startNginx(nginxBinary, bare.url);

type Side = 'bare' | 'proxy' | 'nginx';
const targets: Partial<Record<Side, { url: string; headers: Record<string, string> }>> = {
  bare: { url: bare.url, headers: {} },
  // Through the proxy: the service's listener, the VM named by Host, the token in its header.
  proxy: {
    url: service.url,
    headers: {
      Host: `vm1.localhost:${new URL(service.url).port}`,
      'x-exectl-authorization': `Bearer ${vmToken}`,
    },
  },
  ...(nginx === null ? {} : { nginx: { url: nginx.url, headers: {} } }),
};
const sides = Object.keys(targets) as Side[];

const inProcess: Partial<Record<Side, LoadResult[]>> = {};
const byWrk: Partial<Record<Side, number[]>> = {};
const wrk = await hasWrk();
try {
  const run = (side: Side, durationMs: number) =>
    loadTest({
      ...targets[side]!,
      path: '/',
      method: 'GET',
      connections: CONNECTIONS,
      durationMs,
    });
  // Warm-up: JIT on every side, the token's signature checked once, upstream connections made.
  for (const side of sides) await run(side, 1000);
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of sides) (inProcess[side] ??= []).push(await run(side, DURATION_MS));
  }
  if (wrk) {
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of sides) {
        const r = await runWrk({
          ...targets[side]!,
          connections: CONNECTIONS,
          durationMs: DURATION_MS,
        });
        if (r.failures > 0) throw new Error(`wrk: ${r.failures} failed requests (${side})`);
        (byWrk[side] ??= []).push(r.rps);
      }
    }
  }
} finally {
  await nginx?.stop();
  await service.stop();
  await bare.stop();
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const spread = (values: number[]) =>
  `${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))}`;
let met = true;
const report = (generator: string, rps: Partial<Record<Side, number[]>>) => {
  for (const side of sides) {
    const values = rps[side]!;
    console.log(
      `proxy: ${generator}: ${side.padEnd(5)} ${Math.round(median(values))} req/s (rounds ${spread(values)})`,
    );
  }
  const vsBare = median(rps.proxy!) / median(rps.bare!);
  met &&= vsBare >= TARGET_VS_BARE;
  console.log(
    `proxy: ${generator}: ratio proxy/bare ${vsBare.toFixed(2)} (target ≥ ${TARGET_VS_BARE})`,
  );
  if (rps.nginx === undefined) return;
  const nginxVsBare = median(rps.nginx) / median(rps.bare!);
  const vsNginx = median(rps.proxy!) / median(rps.nginx);
  met &&= vsNginx >= TARGET_VS_NGINX;
  console.log(`proxy: ${generator}: ratio nginx/bare ${nginxVsBare.toFixed(2)}`);
  console.log(
    `proxy: ${generator}: ratio proxy/nginx ${vsNginx.toFixed(2)} (target ≥ ${TARGET_VS_NGINX})`,
  );
};
console.log(
  `proxy: medians of ${ROUNDS} interleaved rounds of ${DURATION_MS / 1000} s, ${CONNECTIONS} connections`,
);
for (const side of sides) {
  const runs = inProcess[side]!;
  const mid = runs.find((r) => r.rps === median(runs.map((x) => x.rps)))!;
  console.log(`proxy: in-process: ${side.padEnd(5)} ${fmt(mid)}`);
}
report(
  'in-process',
  Object.fromEntries(sides.map((side) => [side, inProcess[side]!.map((r) => r.rps)])),
);
if (wrk) report(`wrk -t1 -c${CONNECTIONS}`, byWrk);
else console.log('proxy: wrk not installed (apt-get install -y wrk): its ratios are not measured');
if (nginx === null) {
  console.log('proxy: nginx not installed (apt-get install -y nginx-light): no nginx ratio');
}
process.exitCode = met ? 0 : 1;
