// /exec throughput: `whoami` with a valid svc0 token over 50 keep-alive connections, against a
// bare node:http server answering the same JSON, both measured in this run (target ≥ 0.6);
// and the same /exec with 10,000 accounts, keys and VMs in the store (target: within 10 % of
// the empty store, i.e. lookups do not scan). Needs `npm run build` first.
import { mintSvc0 } from '../src/token/mint.js';
import { createMemorySigner } from '../test/helpers/signers.js';
import { fmt, loadTest, startServer, type LoadResult } from './lib/load.js';

const CONNECTIONS = 50;
const DURATION_MS = 3000;
const ROUNDS = 3;
const signer = createMemorySigner('ed25519');
const token = await mintSvc0(`{"exp":4000000000}`, signer, 'v0@localhost');
const serverOptions = (populate: number) =>
  JSON.stringify({
    publicKey: signer.publicKey.toOpenSsh(),
    fingerprint: signer.publicKey.fingerprint,
    keyType: signer.publicKey.type,
    populate,
  });

// All three servers run for the whole benchmark (an idle one costs nothing) and are measured in
// turns, round after round: a slow moment of the machine then weighs on each alike, and the
// median of the rounds is compared.
const script = (name: string) => new URL(name, import.meta.url).pathname;
const servers = {
  bare: await startServer(script('./servers/bare-http.mjs')),
  empty: await startServer(script('./servers/exec-service.mjs'), [serverOptions(0)]),
  full: await startServer(script('./servers/exec-service.mjs'), [serverOptions(10_000)]),
};
const results: Record<keyof typeof servers, LoadResult[]> = { bare: [], empty: [], full: [] };
try {
  const run = (url: string, durationMs: number) =>
    loadTest({
      url,
      path: '/exec',
      body: 'whoami',
      headers: { authorization: `Bearer ${token}` },
      connections: CONNECTIONS,
      durationMs,
    });
  for (const { url } of Object.values(servers)) await run(url, 1000); // warm-up: JIT, caches
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, { url }] of Object.entries(servers)) {
      results[name as keyof typeof servers].push(await run(url, DURATION_MS));
    }
  }
} finally {
  for (const server of Object.values(servers)) await server.stop();
}

const [bare, empty, full] = [results.bare, results.empty, results.full].map(medianByRps) as [
  LoadResult,
  LoadResult,
  LoadResult,
];
const ratio = empty.rps / bare.rps;
const populated = full.rps / empty.rps;
console.log(`exec: bare node:http      ${fmt(bare)}`);
console.log(`exec: /exec whoami        ${fmt(empty)}`);
console.log(`exec: /exec, 10k keys+VMs ${fmt(full)}`);
console.log(`exec: (medians of ${ROUNDS} interleaved rounds of ${DURATION_MS / 1000} s)`);
console.log(`exec: throughput ratio vs bare node:http ${ratio.toFixed(2)} (target ≥ 0.6)`);
console.log(`exec: 10k-row store vs empty store ${populated.toFixed(2)} (target ≥ 0.9)`);
process.exitCode = ratio >= 0.6 && populated >= 0.9 ? 0 : 1;

/** The round with the median throughput (its latencies come with it). */
function medianByRps(rounds: LoadResult[]): LoadResult {
  return [...rounds].sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)]!;
}
