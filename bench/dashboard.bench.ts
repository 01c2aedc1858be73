// The dashboard's first paint on a server with 200 VMs (issue 26):
//   npm run build && node --import tsx bench/dashboard.bench.ts
// The page's JSON is `ls` through the dashboard API (/_/api/exec, session cookie, Origin);
// the baseline, in the same run, is the same `ls` through POST /exec with a token. Medians of
// interleaved rounds on loopback (an upper bound of the server's time). Targets: the page's
// JSON in ≤ 50 ms, and the bundle (dist/ui/app.js + app.css) ≤ 300 KB gzipped. Exits 1 when
// one is missed.
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { createService } from '../src/service/index.js';
import { parsePublicKey } from '../src/token/keys.js';
import { testServiceConfig } from '../test/helpers/config.js';
import { generateKey, mintWithShellRecipe } from '../test/helpers/keys.js';
import { createTempDir } from '../test/helpers/tmp.js';
import { median } from './lib/stats.js';

const VMS = 200;
const ROUNDS = 200;
const TARGET_MS = 50;
const TARGET_BUNDLE_BYTES = 300 * 1024;
const ROOT = join(import.meta.dirname, '..');

const dir = await createTempDir('bench-dashboard');
const dataDir = dir.join('data');
await mkdir(dataDir);
const service = await createService(testServiceConfig({ dataDir }));
try {
  const key = await generateKey(dir.path, 'ed25519', { name: 'owner' });
  const pub = parsePublicKey(key.publicKeyLine);
  const account = service.store.createAccount('owner@example.com', [
    {
      fingerprint: pub.fingerprint,
      name: 'default',
      publicKey: pub.toOpenSsh(),
      keyType: pub.type,
    },
  ]);
  for (let i = 0; i < VMS; i++) {
    service.store.createVm({
      accountId: account.id,
      name: `vm-${i}`,
      emoji: '🐢',
      status: 'stopped',
      tags: ['bench', `t${i % 7}`],
      comment: `VM number ${i}`,
    });
  }
  const url = service.endpoints.http;
  const token = await mintWithShellRecipe(key, '{"cmds":["ls","browser"]}', 'v0@localhost');
  const auth = { Authorization: `Bearer ${token}` };
  const link = (await (
    await fetch(`${url}/exec`, { method: 'POST', headers: auth, body: 'browser' })
  ).json()) as {
    magic_link: string;
  };
  const signedIn = await fetch(link.magic_link, { redirect: 'manual' });
  const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!;
  const page = { Cookie: cookie, Origin: url };

  const time = async (path: string, headers: Record<string, string>): Promise<number> => {
    const start = performance.now();
    const res = await fetch(`${url}${path}`, { method: 'POST', headers, body: 'ls' });
    const body = (await res.json()) as { vms: unknown[] };
    if (res.status !== 200 || body.vms.length !== VMS) throw new Error(`${path}: ${res.status}`);
    return performance.now() - start;
  };
  const dashboard: number[] = [];
  const exec: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    dashboard.push(await time('/_/api/exec', page));
    exec.push(await time('/exec', auth));
  }
  const ms = median(dashboard);
  const base = median(exec);
  const bundle =
    gzipSync(readFileSync(join(ROOT, 'dist/ui/app.js'))).length +
    gzipSync(readFileSync(join(ROOT, 'dist/ui/app.css'))).length;
  console.log(
    `dashboard: ls of ${VMS} VMs through /_/api/exec ${ms.toFixed(2)} ms (target ≤ ${TARGET_MS}) vs POST /exec ${base.toFixed(2)} ms — ratio ${(ms / base).toFixed(2)}`,
  );
  console.log(
    `dashboard: bundle ${(bundle / 1024).toFixed(1)} KB gzipped (target ≤ ${TARGET_BUNDLE_BYTES / 1024})`,
  );
  process.exitCode = ms <= TARGET_MS && bundle <= TARGET_BUNDLE_BYTES ? 0 : 1;
} finally {
  await service.close();
  await dir.remove();
}
