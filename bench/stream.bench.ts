// Streaming throughput (issue 11): `ssh vm1 head -c 200M /dev/zero` through POST /exec, read to
// the end, against a bare node:http server piping the same `head -c` output (servers/
// bare-stream.mjs), both measured in this run in interleaved rounds. Driven by the in-process
// client (undici, one request at a time) and by wrk with one thread and one connection.
// Target: ≥ 0.5 of the bare server's MB/s. Needs `npm run build` first, and wrk.
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { mintSvc0 } from '../src/token/mint.js';
import { createMemorySigner } from '../test/helpers/signers.js';
import { startServer } from './lib/load.js';
import { hasWrk, runWrk } from './lib/wrk.js';

const BYTES = 200 * 1024 * 1024;
const ROUNDS = 3;
const TARGET = 0.5;
const COMMAND = `ssh vm1 head -c ${BYTES} /dev/zero`;

const signer = createMemorySigner('ed25519');
const token = await mintSvc0(`{"exp":4000000000,"cmds":["ssh"]}`, signer, 'v0@localhost');
const script = (name: string) => new URL(name, import.meta.url).pathname;
const bare = await startServer(script('./servers/bare-stream.mjs'));
const service = await startServer(script('./servers/exec-service.mjs'), [
  JSON.stringify({
    publicKey: signer.publicKey.toOpenSsh(),
    fingerprint: signer.publicKey.fingerprint,
    keyType: signer.publicKey.type,
    runtime: 'bwrap',
    vm: 'vm1',
  }),
]);
const sides = {
  bare: {
    url: `${bare.url}/?bytes=${BYTES}`,
    method: 'GET' as const,
    headers: {},
    body: undefined,
  },
  exec: {
    url: `${service.url}/exec`,
    method: 'POST' as const,
    headers: { authorization: `Bearer ${token}` },
    body: COMMAND,
  },
};

/** One request read to the end; MB/s (10^6 bytes) over its whole duration. */
async function stream(side: (typeof sides)[keyof typeof sides]): Promise<number> {
  const started = performance.now();
  const res = await request(side.url, side);
  let bytes = 0;
  for await (const chunk of res.body) bytes += (chunk as Buffer).length;
  if (res.statusCode !== 200 || bytes !== BYTES) {
    throw new Error(`status ${res.statusCode}, ${bytes} bytes`);
  }
  return bytes / 1e6 / ((performance.now() - started) / 1000);
}

const inProcess = { bare: [] as number[], exec: [] as number[] };
const byWrk = { bare: [] as number[], exec: [] as number[] };
const wrk = await hasWrk();
try {
  await stream(sides.bare);
  await stream(sides.exec);
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of ['bare', 'exec'] as const) inProcess[name].push(await stream(sides[name]));
  }
  if (wrk) {
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of ['bare', 'exec'] as const) {
        const r = await runWrk({ ...sides[name], connections: 1, durationMs: 4000 });
        if (r.failures > 0) throw new Error(`wrk: ${r.failures} failed requests (${name})`);
        byWrk[name].push(r.bytesPerSecond / 1e6);
      }
    }
  }
} finally {
  await service.stop();
  await bare.stop();
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const ratio = median(inProcess.exec) / median(inProcess.bare);
console.log(`stream: bare node:http piping head -c   ${median(inProcess.bare).toFixed(0)} MB/s`);
console.log(`stream: /exec ${COMMAND}   ${median(inProcess.exec).toFixed(0)} MB/s`);
console.log(
  `stream: (medians of ${ROUNDS} interleaved rounds of one ${BYTES / 2 ** 20} MiB answer)`,
);
console.log(`stream: ratio vs bare (in-process client) ${ratio.toFixed(2)} (target ≥ ${TARGET})`);
let wrkRatio = Infinity;
if (wrk) {
  wrkRatio = median(byWrk.exec) / median(byWrk.bare);
  console.log(
    `stream: wrk -t1 -c1: bare ${median(byWrk.bare).toFixed(0)} MB/s, /exec ${median(byWrk.exec).toFixed(0)} MB/s`,
  );
  console.log(`stream: ratio vs bare (wrk) ${wrkRatio.toFixed(2)} (target ≥ ${TARGET})`);
} else {
  console.log('stream: wrk not installed (apt-get install -y wrk): its ratio is not measured');
}
process.exitCode = ratio >= TARGET && wrkRatio >= TARGET ? 0 : 1;
