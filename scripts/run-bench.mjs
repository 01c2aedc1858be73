#!/usr/bin/env node
// Runs every benchmark in bench/ one after another (never in parallel: they would measure each
// other). Each benchmark measures its own baseline in the same run and prints the ratio.
//   node scripts/run-bench.mjs            # all
//   node scripts/run-bench.mjs verify     # files whose name contains "verify"
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const filters = process.argv.slice(2);
const files = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`\n== ${file}`);
  // ESBUILD_WORKER_THREADS=0: see scripts/run-tests.mjs (tsx's loader could hang in esbuild's worker).
  const r = spawnSync(process.execPath, ['--import', 'tsx', join('bench', file)], {
    stdio: 'inherit',
    env: { ...process.env, ESBUILD_WORKER_THREADS: '0' },
  });
  if (r.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
