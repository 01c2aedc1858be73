// VM proxy throughput (issue 11): a node:http server inside a VM (bench/servers/plain-http.mjs),
// reached through the proxy with a VM token over 20 keep-alive connections, against the same
// server run bare on the host, both measured in this run in interleaved rounds. Driven by the
// in-process generator and by wrk with one thread. Target: ≥ 0.6 of bare. As root the VM is a
// machine (its own network, reached by connections made inside it), as the server runs on a VM host.
// Needs `npm run build` first, and wrk (`apt-get install -y wrk`).
import { mintSvc0 } from '../src/token/mint.js';
import { createMemorySigner } from '../test/helpers/signers.js';
import { fmt, loadTest, startServer, type LoadResult } from './lib/load.js';
import { hasWrk, runWrk } from './lib/wrk.js';

const CONNECTIONS = 20;
const DURATION_MS = 3000;
const ROUNDS = 3;
const VM_PORT = 8080;
const TARGET = 0.6;

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
// Through the proxy: the service's listener, the VM named by Host, the token in the proxy's header.
const proxied = {
  url: service.url,
  headers: {
    Host: `vm1.localhost:${new URL(service.url).port}`,
    'x-exectl-authorization': `Bearer ${vmToken}`,
  },
};
const direct = { url: bare.url, headers: {} };

const inProcess = { bare: [] as LoadResult[], proxy: [] as LoadResult[] };
const byWrk = { bare: [] as number[], proxy: [] as number[] };
const wrk = await hasWrk();
try {
  const run = (side: typeof direct, durationMs: number) =>
    loadTest({ ...side, path: '/', method: 'GET', connections: CONNECTIONS, durationMs });
  // Warm-up: JIT on both sides, the token's signature checked once, the first connection into the VM made.
  await run(direct, 1000);
  await run(proxied, 1000);
  for (let round = 0; round < ROUNDS; round++) {
    inProcess.bare.push(await run(direct, DURATION_MS));
    inProcess.proxy.push(await run(proxied, DURATION_MS));
  }
  if (wrk) {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, side] of [
        ['bare', direct],
        ['proxy', proxied],
      ] as const) {
        const r = await runWrk({ ...side, connections: CONNECTIONS, durationMs: DURATION_MS });
        if (r.failures > 0) throw new Error(`wrk: ${r.failures} failed requests (${name})`);
        byWrk[name].push(r.rps);
      }
    }
  }
} finally {
  await service.stop();
  await bare.stop();
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const medianRun = (runs: LoadResult[]) =>
  runs.find((r) => r.rps === median(runs.map((x) => x.rps)))!;
const ratio = median(inProcess.proxy.map((r) => r.rps)) / median(inProcess.bare.map((r) => r.rps));
console.log(`proxy: bare node:http             ${fmt(medianRun(inProcess.bare))}`);
console.log(`proxy: through the VM proxy       ${fmt(medianRun(inProcess.proxy))}`);
console.log(
  `proxy: (medians of ${ROUNDS} interleaved rounds of ${DURATION_MS / 1000} s, ${CONNECTIONS} connections)`,
);
console.log(`proxy: ratio vs bare (in-process generator) ${ratio.toFixed(2)} (target ≥ ${TARGET})`);
let wrkRatio = Infinity;
if (wrk) {
  wrkRatio = median(byWrk.proxy) / median(byWrk.bare);
  console.log(
    `proxy: wrk -t1 -c${CONNECTIONS}: bare ${Math.round(median(byWrk.bare))} req/s, proxy ${Math.round(median(byWrk.proxy))} req/s`,
  );
  console.log(`proxy: ratio vs bare (wrk) ${wrkRatio.toFixed(2)} (target ≥ ${TARGET})`);
} else {
  console.log('proxy: wrk not installed (apt-get install -y wrk): its ratio is not measured');
}
process.exitCode = ratio >= TARGET && wrkRatio >= TARGET ? 0 : 1;
