// Start-up cost of the built CLI against Node loading its framework alone, measured in the
// same run:
//   npm run build && node --import tsx bench/cli-startup.bench.ts
// Each round runs `node -e 0`, `node -e "require('commander')"`, `exectl inspect <token>` and
// `exectl mint --key <unencrypted ed25519>` once, interleaved so that load on the machine
// weighs on all alike; medians are compared. The target is against commander (the floor any
// commander CLI starts from); the ratio against bare Node is printed too, as it was measured
// before. Exits 1 when a ratio misses its target.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { median } from './lib/stats.js';

const ROUNDS = 20;
const TARGET_RATIO = 1.25;
const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'exectl.cjs');

if (!existsSync(join(import.meta.dirname, '..', 'dist', 'bundle', 'main.cjs'))) {
  throw new Error('dist/bundle/main.cjs is missing: run `npm run build` first');
}

const dir = await mkdtemp(join(tmpdir(), 'exectl-bench-'));
try {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'config'),
    NO_COLOR: '1',
  };
  const key = join(dir, 'id_ed25519');
  runOk('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key], env);
  const token = runOk(process.execPath, [BIN, 'mint', '--key', key], env).trim();

  const commands = {
    'node -e 0': ['-e', '0'],
    commander: ['-e', "require('commander')"],
    inspect: [BIN, 'inspect', token],
    mint: [BIN, 'mint', '--key', key],
  };
  const samples = new Map<string, number[]>(Object.keys(commands).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, args] of Object.entries(commands)) {
      const start = performance.now();
      runOk(process.execPath, args, env);
      samples.get(name)!.push(performance.now() - start);
    }
  }

  const bare = median(samples.get('node -e 0')!);
  const floor = median(samples.get('commander')!);
  let missed = false;
  for (const name of ['inspect', 'mint']) {
    const ms = median(samples.get(name)!);
    const ratio = ms / floor;
    missed ||= ratio > TARGET_RATIO;
    console.log(
      `cli-startup: ${name} ${ms.toFixed(0)} ms vs node + commander ${floor.toFixed(0)} ms — ratio ${ratio.toFixed(2)} (target ≤ ${TARGET_RATIO}); vs node -e 0 ${bare.toFixed(0)} ms — ratio ${(ms / bare).toFixed(2)}`,
    );
  }
  process.exitCode = missed ? 1 : 0;
} finally {
  await rm(dir, { recursive: true, force: true });
}

function runOk(program: string, args: readonly string[], env: Record<string, string>): string {
  // From the package root, so that `require('commander')` finds the one the CLI bundles.
  const result = spawnSync(program, args, { env, encoding: 'utf8', cwd: ROOT });
  if (result.status !== 0) {
    throw new Error(`${program} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  }
  return result.stdout;
}
