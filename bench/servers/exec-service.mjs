// A real exectl service for benchmarks, run from the compiled dist/ (what users run).
// argv[2]: JSON { publicKey, fingerprint, keyType, populate, keysFile, runtime, vm, vmServer,
// rateLimit }: the bench account's key, how many filler accounts (each with a key and a VM) to
// add, a JSON file of more keys, each registered on an account of its own, the VM to create,
// the port inside it where plain-http.mjs then serves (the VM's default port), and the rate
// limit ({ capacity, refillMs }, which also turns on the per-address failure limit). Prints
// its URL.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createService, releaseVmIdRanges } from '../../dist/service/index.js';

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
  rateLimit: options.rateLimit ?? null,
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
  if (options.vmServer) await startVmServer(store.setDefaultPort(vm.id, options.vmServer));
}
process.stdout.write(service.endpoints.http + '\n');
// Its VMs' host-wide id ranges (/var/lib/exectl/id-ranges) go back before their disks go:
// a bench run leaves no claim behind.
const stop = async () => {
  await service.close();
  await releaseVmIdRanges(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

/** Starts plain-http.mjs inside the VM on its default port and waits until it answers. */
async function startVmServer(vm) {
  const source = readFileSync(new URL('./plain-http.mjs', import.meta.url)).toString('base64');
  const inVm = async (command) => {
    const output = [];
    const { exitCode } = await service.machines.exec(vm, command, {
      signal: AbortSignal.timeout(20_000),
      onOutput: (chunk) => output.push(chunk),
    });
    return { exitCode, text: Buffer.concat(output).toString() };
  };
  const started = await inVm(
    `printf %s ${source} | base64 -d > "$HOME/plain-http.mjs" && ` +
      `(setsid nohup node "$HOME/plain-http.mjs" ${vm.defaultPort} > "$HOME/plain.log" 2>&1 < /dev/null &)`,
  );
  if (started.exitCode !== 0) throw new Error(`cannot start the VM's server: ${started.text}`);
  const probe = `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${vm.defaultPort}' 2>/dev/null`;
  for (let i = 0; i < 200; i++) {
    if ((await inVm(probe)).exitCode === 0) return;
    await sleep(50);
  }
  throw new Error(`the VM's server does not listen: ${(await inVm('cat "$HOME/plain.log"')).text}`);
}
