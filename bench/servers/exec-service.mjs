// A real exectl service for benchmarks, run from the compiled dist/ (what users run).
// argv[2]: JSON { publicKey, fingerprint, keyType, populate, keysFile, runtime, vm }: the bench
// account's key, how many filler accounts (each with a key and a VM) to add, and a JSON file of
// more keys, each registered on an account of its own. Prints its URL.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createService } from '../../dist/service/index.js';

const options = JSON.parse(process.argv[2]);
const dataDir = mkdtempSync(join(tmpdir(), 'exectl-bench-'));
const service = await createService({
  listen: { host: '127.0.0.1', port: 0 },
  sshListen: null,
  reflectionListen: { host: '127.0.0.1', port: 0 },
  dataDir,
  domain: 'localhost',
  tls: null,
  runtime: options.runtime ?? 'process',
  rateLimit: null,
  log: () => {},
  commandDeadlineMs: 30_000,
});
const { store } = service;
const owner = store.createAccount('bench@example.com', [
  {
    fingerprint: options.fingerprint,
    name: 'bench',
    publicKey: options.publicKey,
    keyType: options.keyType,
  },
]);
for (const [i, key] of JSON.parse(
  options.keysFile === undefined ? '[]' : readFileSync(options.keysFile, 'utf8'),
).entries()) {
  store.createAccount(`rotate${i}@example.com`, [{ ...key, name: 'rotate' }]);
}
// Filler rows: other accounts with one key and one VM record each, to show lookups do not scan.
for (let i = 0; i < (options.populate ?? 0); i++) {
  const fp = `SHA256:filler${String(i).padStart(37, '0')}`;
  const account = store.createAccount(`user${i}@example.com`, [
    { fingerprint: fp, name: 'k', publicKey: `ssh-ed25519 AAAAfiller${i}`, keyType: 'ssh-ed25519' },
  ]);
  store.createVm({ accountId: account.id, name: `vm-${i}`, emoji: '🐢', status: 'running' });
}
if (options.vm) {
  const vm = store.createVm({
    accountId: owner.id,
    name: options.vm,
    emoji: '🐢',
    status: 'creating',
  });
  await service.machines.create(vm, new AbortController().signal);
}
process.stdout.write(service.endpoints.http + '\n');
const stop = async () => {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
