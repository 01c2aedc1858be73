// /exec throughput: `whoami` with a valid svc0 token over 50 keep-alive connections, against a
// bare node:http server answering the same JSON, both measured in this run (target ≥ 0.6);
// then the same /exec run with 10,000 accounts, keys and VMs in the store (target: within
// 10 % of the empty store, i.e. lookups do not scan). Needs `npm run build` first.
import { mintSvc0 } from '../src/token/mint.js';
import { createMemorySigner } from '../test/helpers/signers.js';
import { fmt, loadTest, startServer, type LoadResult } from './lib/load.js';

const CONNECTIONS = 50;
const DURATION_MS = 4000;
const signer = createMemorySigner('ed25519');
const token = await mintSvc0(`{"exp":4000000000}`, signer, 'v0@localhost');
const serverOptions = (populate: number) =>
  JSON.stringify({
    publicKey: signer.publicKey.toOpenSsh(),
    fingerprint: signer.publicKey.fingerprint,
    keyType: signer.publicKey.type,
    populate,
  });

async function measure(script: string, args: string[] = []): Promise<LoadResult> {
  const server = await startServer(new URL(script, import.meta.url).pathname, args);
  try {
    const run = (durationMs: number) =>
      loadTest({
        url: server.url,
        path: '/exec',
        body: 'whoami',
        headers: { authorization: `Bearer ${token}` },
        connections: CONNECTIONS,
        durationMs,
      });
    await run(1000); // warm-up: JIT, caches, connections
    return await run(DURATION_MS);
  } finally {
    await server.stop();
  }
}

const bare = await measure('./servers/bare-http.mjs');
const empty = await measure('./servers/exec-service.mjs', [serverOptions(0)]);
const full = await measure('./servers/exec-service.mjs', [serverOptions(10_000)]);

const ratio = empty.rps / bare.rps;
const populated = full.rps / empty.rps;
console.log(`exec: bare node:http      ${fmt(bare)}`);
console.log(`exec: /exec whoami        ${fmt(empty)}`);
console.log(`exec: /exec, 10k keys+VMs ${fmt(full)}`);
console.log(`exec: throughput ratio vs bare node:http ${ratio.toFixed(2)} (target ≥ 0.6)`);
console.log(`exec: 10k-row store vs empty store ${populated.toFixed(2)} (target ≥ 0.9)`);
process.exitCode = ratio >= 0.6 && populated >= 0.9 ? 0 : 1;
