// A good client under a bad-token flood (issue 11, SPEC §7): one client (its own loopback
// address, 127.0.0.2) runs `whoami` on one keep-alive connection, first alone, then while 20
// connections from 127.0.0.1 send tokens signed by a registered key for another namespace,
// each a different one (so each would cost a signature check), as fast as they can. Rate
// limiting is on, as in production, with a per-key bucket too large to matter here. The flood
// is driven by the in-process generator, then by wrk with one thread. Target: the good client's
// p50 under the flood stays within 2× its quiet p50, measured in this run.
// Needs `npm run build` first, and wrk.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { mintSvc0 } from '../src/token/mint.js';
import { createMemorySigner } from '../test/helpers/signers.js';
import { fmt, loadTest, startServer, type LoadResult } from './lib/load.js';
import { hasWrk, runWrk } from './lib/wrk.js';

const FLOOD_CONNECTIONS = 20;
const DURATION_MS = 3000;
const BAD_TOKENS = 2000;
const TARGET = 2;

const signer = createMemorySigner('ed25519');
const token = await mintSvc0(`{"exp":4000000000}`, signer, 'v0@localhost');
const badTokens = await Promise.all(
  Array.from({ length: BAD_TOKENS }, (_, i) =>
    mintSvc0(`{"exp":${4_000_000_000 - i}}`, signer, 'v0@elsewhere.example'),
  ),
);
const service = await startServer(new URL('./servers/exec-service.mjs', import.meta.url).pathname, [
  JSON.stringify({
    publicKey: signer.publicKey.toOpenSsh(),
    fingerprint: signer.publicKey.fingerprint,
    keyType: signer.publicKey.type,
    rateLimit: { capacity: 1_000_000_000, refillMs: 1 },
  }),
]);

/** The good client: whoami from its own address, one request at a time. */
const goodClient = (durationMs: number) =>
  loadTest({
    url: service.url,
    path: '/exec',
    body: 'whoami',
    headers: { authorization: `Bearer ${token}` },
    connections: 1,
    durationMs,
    localAddress: '127.0.0.2',
  });

/** 20 connections of bad tokens, whatever the answers (401, then 429), until `until`. */
async function inProcessFlood(until: number): Promise<number> {
  const pool = new Pool(service.url, { connections: FLOOD_CONNECTIONS, pipelining: 1 });
  let sent = 0;
  const worker = async () => {
    while (performance.now() < until) {
      // A refused connection (the server may close one after a refusal) is just reopened.
      try {
        const res = await pool.request({
          method: 'POST',
          path: '/exec',
          headers: { authorization: `Bearer ${badTokens[sent++ % BAD_TOKENS]}` },
          body: 'whoami',
        });
        await res.body.dump();
      } catch {
        continue;
      }
    }
  };
  await Promise.all(Array.from({ length: FLOOD_CONNECTIONS }, worker));
  await pool.close();
  return sent;
}

const wrkFlood = (durationMs: number) =>
  runWrk({
    url: `${service.url}/exec`,
    connections: FLOOD_CONNECTIONS,
    durationMs,
    lua: [
      `local tokens = {${badTokens.map((t) => JSON.stringify(t)).join(',')}}`,
      'local i = 0',
      'request = function()',
      '  i = i % #tokens + 1',
      '  return wrk.format("POST", "/exec", {["Authorization"] = "Bearer " .. tokens[i]}, "whoami")',
      'end',
    ].join('\n'),
  });

const ROUNDS = 3;
const wrk = await hasWrk();
const results: { quiet: LoadResult[]; flooded: LoadResult[]; wrkFlooded: LoadResult[] } = {
  quiet: [],
  flooded: [],
  wrkFlooded: [],
};
const floodRates: number[] = [];
const wrkFloodRates: number[] = [];
/** The good client's run while `flood` (started first, for a bit longer) goes on. */
async function during<T>(flood: (durationMs: number) => Promise<T>): Promise<[LoadResult, T]> {
  const flooding = flood(DURATION_MS + 1000);
  // The flood first spends its address's burst of failures; measured once it is under way.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const good = await goodClient(DURATION_MS);
  return [good, await flooding];
}
try {
  await goodClient(1000);
  // Interleaved rounds, so a busy moment of the machine weighs on each alike.
  for (let round = 0; round < ROUNDS; round++) {
    results.quiet.push(await goodClient(DURATION_MS));
    const [flooded, sent] = await during((ms) => inProcessFlood(performance.now() + ms));
    results.flooded.push(flooded);
    floodRates.push(sent / ((DURATION_MS + 1000) / 1000));
    if (wrk) {
      const [underWrk, byWrk] = await during((ms) => wrkFlood(ms));
      results.wrkFlooded.push(underWrk);
      wrkFloodRates.push(byWrk.rps);
    }
  }
} finally {
  await service.stop();
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const medianRun = (runs: LoadResult[]) =>
  runs.find((r) => r.p50 === median(runs.map((x) => x.p50)))!;
const quiet = medianRun(results.quiet);
const flooded = medianRun(results.flooded);
const ratio = flooded.p50 / quiet.p50;
console.log(`flood: good client alone                 ${fmt(quiet)}`);
console.log(
  `flood: under ${Math.round(median(floodRates))} bad tokens/s (in-process) ${fmt(flooded)}`,
);
console.log(`flood: (medians of ${ROUNDS} interleaved rounds of ${DURATION_MS / 1000} s)`);
console.log(`flood: p50 under the flood / quiet p50 ${ratio.toFixed(2)} (target ≤ ${TARGET})`);
let wrkRatio = 0;
if (wrk) {
  const underWrk = medianRun(results.wrkFlooded);
  wrkRatio = underWrk.p50 / quiet.p50;
  console.log(
    `flood: under ${Math.round(median(wrkFloodRates))} bad tokens/s (wrk -t1 -c20) ${fmt(underWrk)}`,
  );
  console.log(
    `flood: p50 under the wrk flood / quiet p50 ${wrkRatio.toFixed(2)} (target ≤ ${TARGET})`,
  );
} else {
  console.log('flood: wrk not installed (apt-get install -y wrk): its flood is not measured');
}
process.exitCode = ratio <= TARGET && wrkRatio <= TARGET ? 0 : 1;
