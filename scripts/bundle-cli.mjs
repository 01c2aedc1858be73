#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/main.js) into dist/bundle/ for bin/exectl.js. One file per
// command instead of dozens of ES modules cuts start-up time by about a quarter (measured by
// bench/cli-startup.bench.ts); each command stays a separate chunk, loaded only when it runs.
// Native or optional-native packages stay external and load from node_modules.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

// Chunk names carry content hashes: clear the old ones so none linger.
rmSync('dist/bundle', { recursive: true, force: true });

await build({
  entryPoints: ['dist/cli/main.js'],
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  external: ['better-sqlite3', 'ssh2', 'cpu-features'],
  // CommonJS dependencies (commander, sshpk) call require(); give the ES module bundle one.
  banner: {
    js: "import { createRequire as __exectlRequire } from 'node:module'; const require = __exectlRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
