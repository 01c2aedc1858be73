// /exec throughput: `whoami` with a valid svc0 token over 50 keep-alive connections, against a
// bare node:http server answering the same JSON, both measured in this run (target ≥ 0.7), by
// the in-process generator and by wrk with one thread (`apt-get install -y wrk`).
// Then lookups in a big store (target: within 10 % of a small one, i.e. they do not scan):
// requests rotate over 4,000 keys, each of its own account, so that their lookups (3 per
// request) outnumber what the server's read cache holds (10,000) and every request reads
// SQLite; once with just those accounts, once with 10,000 more accounts, keys and VMs.
// Needs `npm run build` first.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintSvc0 } from '../src/token/mint.js';
import { createMemorySigner } from '../test/helpers/signers.js';
import { fmt, loadTest, startServer, type LoadResult } from './lib/load.js';
import { hasWrk, runWrk } from './lib/wrk.js';

const CONNECTIONS = 50;
const DURATION_MS = 3000;
const ROUNDS = 3;
const signer = createMemorySigner('ed25519');
const token = await mintSvc0(`{"exp":4000000000}`, signer, 'v0@localhost');
const ROTATING_KEYS = 4_000;
const rotating = await Promise.all(
  Array.from({ length: ROTATING_KEYS }, async () => {
    const key = createMemorySigner('ed25519');
    return { key, token: await mintSvc0(`{"exp":4000000000}`, key, 'v0@localhost') };
  }),
);
const dir = await mkdtemp(join(tmpdir(), 'exectl-bench-'));
const keysFile = join(dir, 'keys.json');
await writeFile(
  keysFile,
  JSON.stringify(
    rotating.map(({ key }) => ({
      publicKey: key.publicKey.toOpenSsh(),
      fingerprint: key.publicKey.fingerprint,
      keyType: key.publicKey.type,
    })),
  ),
);
const serverOptions = (extra: { populate?: number; keysFile?: string }) =>
  JSON.stringify({
    publicKey: signer.publicKey.toOpenSsh(),
    fingerprint: signer.publicKey.fingerprint,
    keyType: signer.publicKey.type,
    ...extra,
  });
let turn = 0;
const oneToken = { authorization: `Bearer ${token}` };
const nextRotatingToken = () => ({
  authorization: `Bearer ${rotating[turn++ % ROTATING_KEYS]!.token}`,
});

// All four servers run for the whole benchmark (an idle one costs nothing) and are measured in
// turns, round after round: a slow moment of the machine then weighs on each alike, and the
// median of the rounds is compared.
const script = (name: string) => new URL(name, import.meta.url).pathname;
const servers = {
  bare: await startServer(script('./servers/bare-http.mjs')),
  exec: await startServer(script('./servers/exec-service.mjs'), [serverOptions({})]),
  small: await startServer(script('./servers/exec-service.mjs'), [serverOptions({ keysFile })]),
  big: await startServer(script('./servers/exec-service.mjs'), [
    serverOptions({ keysFile, populate: 10_000 }),
  ]),
};
const headersFor = {
  bare: oneToken,
  exec: oneToken,
  small: nextRotatingToken,
  big: nextRotatingToken,
};
const results: Record<keyof typeof servers, LoadResult[]> = {
  bare: [],
  exec: [],
  small: [],
  big: [],
};
const wrk = await hasWrk();
const byWrk = { bare: [] as number[], exec: [] as number[] };
try {
  const names = Object.keys(servers) as (keyof typeof servers)[];
  const run = (name: keyof typeof servers, durationMs: number) =>
    loadTest({
      url: servers[name].url,
      path: '/exec',
      body: 'whoami',
      headers: headersFor[name],
      connections: CONNECTIONS,
      durationMs,
    });
  // Warm-up: JIT, and every rotating token's signature checked once (the verification cache
  // holds them all, so the rounds measure lookups, not ed25519).
  for (const name of names) await run(name, name === 'small' || name === 'big' ? 3000 : 1000);
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of names) results[name].push(await run(name, DURATION_MS));
  }
  if (wrk) {
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of ['bare', 'exec'] as const) {
        const r = await runWrk({
          url: `${servers[name].url}/exec`,
          method: 'POST',
          body: 'whoami',
          headers: oneToken,
          connections: CONNECTIONS,
          durationMs: DURATION_MS,
        });
        if (r.failures > 0) throw new Error(`wrk: ${r.failures} failed requests (${name})`);
        byWrk[name].push(r.rps);
      }
    }
  }
} finally {
  for (const server of Object.values(servers)) await server.stop();
  await rm(dir, { recursive: true, force: true });
}

const [bare, exec, small, big] = [results.bare, results.exec, results.small, results.big].map(
  medianByRps,
) as [LoadResult, LoadResult, LoadResult, LoadResult];
const ratio = exec.rps / bare.rps;
const populated = big.rps / small.rps;
console.log(`exec: bare node:http                ${fmt(bare)}`);
console.log(`exec: /exec whoami                  ${fmt(exec)}`);
console.log(`exec: 4k rotating keys              ${fmt(small)}`);
console.log(`exec: 4k rotating keys + 10k rows   ${fmt(big)}`);
console.log(`exec: (medians of ${ROUNDS} interleaved rounds of ${DURATION_MS / 1000} s)`);
console.log(`exec: throughput ratio vs bare node:http ${ratio.toFixed(2)} (target ≥ 0.7)`);
console.log(`exec: big store vs small store ${populated.toFixed(2)} (target ≥ 0.9)`);
let wrkRatio = Infinity;
if (wrk) {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  wrkRatio = median(byWrk.exec) / median(byWrk.bare);
  console.log(
    `exec: wrk -t1 -c${CONNECTIONS}: bare ${Math.round(median(byWrk.bare))} req/s, /exec whoami ${Math.round(median(byWrk.exec))} req/s`,
  );
  console.log(
    `exec: throughput ratio vs bare node:http (wrk) ${wrkRatio.toFixed(2)} (target ≥ 0.7)`,
  );
} else {
  console.log('exec: wrk not installed (apt-get install -y wrk): its ratio is not measured');
}
process.exitCode = ratio >= 0.7 && wrkRatio >= 0.7 && populated >= 0.9 ? 0 : 1;

/** The round with the median throughput (its latencies come with it). */
function medianByRps(rounds: LoadResult[]): LoadResult {
  return [...rounds].sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)]!;
}
