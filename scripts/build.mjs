#!/usr/bin/env node
// `npm run build`: builds into dist.next/ beside dist/, then swaps it in with renames, so that
// an exectl started from this folder during a build (a second `npx exectl`, whose prepare
// rebuilds) always finds a complete build: the old one until the swap, the new one after. The
// previous build stays as dist.old/ until the next build, for bin/exectl.cjs to fall back on
// in the instant between the two renames, and for chunks a running exectl loads later.
import { execFileSync } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';

const NEXT = 'dist.next';
const OLD = 'dist.old';

rmSync(NEXT, { recursive: true, force: true });
const env = { ...process.env, EXECTL_BUILD_DIR: NEXT };
const steps = [
  ['node_modules/.bin/tsc', ['-p', 'tsconfig.build.json', '--outDir', NEXT]],
  [process.execPath, ['scripts/bundle-cli.mjs']],
  [process.execPath, ['scripts/copy-vm-scripts.mjs']],
  [process.execPath, ['scripts/bundle-ui.mjs']],
];
for (const [command, args] of steps) execFileSync(command, args, { stdio: 'inherit', env });

rmSync(OLD, { recursive: true, force: true });
if (existsSync('dist')) renameSync('dist', OLD);
renameSync(NEXT, 'dist');
