// `exectl ssh <vm> true` against `exectl run whoami`, both through the built CLI against one
// service (VM runtime `process`), interleaved in the same run so that load weighs on both
// alike; medians are compared (issue 14: ≤ 1.2×). What the ratio shows is the cost of the ssh
// path on top of a plain command: the VM command's process and the raw-output answer.
//   npm run build && node --import tsx bench/ssh-vs-run.bench.ts
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createService } from '../src/service/index.js';
import { parsePublicKey } from '../src/token/keys.js';
import { median } from './lib/stats.js';

const ROUNDS = 30;
const TARGET_RATIO = 1.2;
const BIN = join(import.meta.dirname, '..', 'bin', 'exectl.cjs');

if (!existsSync(join(import.meta.dirname, '..', 'dist', 'bundle', 'main.cjs'))) {
  throw new Error('dist/bundle/main.cjs is missing: run `npm run build` first');
}

const dir = await mkdtemp(join(tmpdir(), 'exectl-bench-'));
const service = await createService({
  listen: { host: '127.0.0.1', port: 0 },
  sshListen: null,
  reflectionListen: { host: '127.0.0.1', port: 0 },
  dataDir: dir,
  domain: 'localhost',
  tls: null,
  runtime: 'process',
  rateLimit: null,
  log: () => {},
  commandDeadlineMs: 30_000,
});
try {
  const home = join(dir, 'home');
  await mkdir(join(home, '.ssh'), { recursive: true });
  const key = join(home, '.ssh', 'id_ed25519');
  runOk('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key], {});
  const pub = parsePublicKey(await readFile(`${key}.pub`, 'utf8'));
  service.store.createAccount('bench@example.com', [
    {
      fingerprint: pub.fingerprint,
      name: 'default',
      publicKey: pub.toOpenSsh(),
      keyType: pub.type,
    },
  ]);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    NO_COLOR: '1',
    EXECTL_URL: service.endpoints.http,
  };
  await runAsync(process.execPath, [BIN, 'run', 'new', '--name', 'web'], env);

  const commands = {
    'run whoami': [BIN, 'run', 'whoami'],
    'ssh web true': [BIN, 'ssh', 'web', 'true'],
  };
  const samples = new Map<string, number[]>(Object.keys(commands).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, args] of Object.entries(commands)) {
      const start = performance.now();
      await runAsync(process.execPath, args, env);
      samples.get(name)!.push(performance.now() - start);
    }
  }
  const baseline = median(samples.get('run whoami')!);
  const ssh = median(samples.get('ssh web true')!);
  const ratio = ssh / baseline;
  console.log(
    `ssh-vs-run: exectl ssh web true ${ssh.toFixed(0)} ms vs exectl run whoami ${baseline.toFixed(0)} ms — ratio ${ratio.toFixed(2)} (target ≤ ${TARGET_RATIO})`,
  );
  process.exitCode = ratio > TARGET_RATIO ? 1 : 0;
} finally {
  await service.close();
  await rm(dir, { recursive: true, force: true });
}

/** Runs a CLI child without blocking this process's event loop (the service lives here). */
async function runAsync(program: string, args: readonly string[], env: Record<string, string>) {
  const { spawn } = await import('node:child_process');
  const child = spawn(program, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`${args.join(' ')} exited ${code}: ${stderr}`);
}

function runOk(program: string, args: readonly string[], env: Record<string, string>): string {
  const result = spawnSync(program, args, {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`${program} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  }
  return result.stdout;
}
