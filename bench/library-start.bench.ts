// startServer() (SPEC §10) to the first successful exec('whoami'), in process, against spawning
// `node -e 0`, measured in the same run:
//   npm run build && node --import tsx bench/library-start.bench.ts
// Tests start many servers: each round starts one with the defaults (temporary folder, free
// ports, SSH on, a generated owner key), asks whoami, and stops it (stopping is not timed);
// rounds interleave with `node -e 0` so that load on the machine weighs on both alike. The
// first start of the process, which also loads the service's modules, is shown apart.
// Exits 1 when the median ratio misses its target.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { median } from './lib/stats.js';
import type * as LibraryModule from '../src/index.js';

const ROUNDS = 15;
const TARGET_RATIO = 3;
const INDEX = join(import.meta.dirname, '..', 'dist', 'index.js');

if (!existsSync(INDEX)) throw new Error('dist/index.js is missing: run `npm run build` first');
const { Client, startServer } = (await import(INDEX)) as typeof LibraryModule;

/** Milliseconds from startServer() to whoami's answer. */
async function startToWhoami(): Promise<number> {
  const started = performance.now();
  const server = await startServer();
  try {
    const client = new Client({ url: server.url, token: await server.mint() });
    await client.exec('whoami');
    return performance.now() - started;
  } finally {
    await server.stop();
  }
}

function nodeE0(): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, ['-e', '0']);
  if (result.status !== 0) throw new Error(`node -e 0 exited ${result.status}`);
  return performance.now() - started;
}

const first = await startToWhoami();
const library: number[] = [];
const node: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  node.push(nodeE0());
  library.push(await startToWhoami());
}
const [ms, baseline] = [median(library), median(node)];
const ratio = ms / baseline;
console.log(
  `library-start: startServer → whoami ${ms.toFixed(0)} ms vs node -e 0 ${baseline.toFixed(0)} ms — ratio ${ratio.toFixed(2)} (target ≤ ${TARGET_RATIO}); first in the process (modules loading) ${first.toFixed(0)} ms, ratio ${(first / baseline).toFixed(2)}`,
);
process.exitCode = ratio > TARGET_RATIO ? 1 : 0;
