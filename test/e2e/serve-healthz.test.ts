// GET /healthz of `exectl serve` as a script or a container health check uses it: polled from
// the moment the process starts, its first 200 means the server is usable — the --seed applied
// (setup scripts run) and the owner there — not only that its listeners are up.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateKey, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt } from './harness.js';
import { execJson, launchServe, stopAll } from './serve-server.js';

let dir: TempDir;
let ada: GeneratedKey;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-healthz');
  ada = await generateKey(dir.path, 'ed25519', { name: 'ada', comment: 'ada@laptop' });
});
after(async () => {
  await stopAll();
  await dir.remove();
});

/** A loopback port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('the first 200 comes once the seed is applied: its VM is there and running', async () => {
  const seedPath = dir.join('seed.json');
  writeFileSync(
    seedPath,
    JSON.stringify({
      accounts: [
        {
          email: 'ada@example.com',
          keys: [ada.publicKeyLine],
          vms: [{ name: 'slow', setup_script: 'sleep 1.5' }],
        },
      ],
    }),
  );
  const url = `http://127.0.0.1:${await freePort()}`;
  const server = launchServe(
    [
      ...['--data', dir.join('data'), '--listen', url.slice('http://'.length)],
      ...['--ssh-listen', 'off', '--reflection-listen', '127.0.0.1:0', '--runtime', 'process'],
      ...['--seed', seedPath],
    ],
    { home: dir.path },
  );
  const seen = new Set<string>();
  for (let tries = 0; ; tries++) {
    assert.ok(tries < 600, `no 200 from /healthz in 30 s:\n${server.stderr()}`);
    const answer = await fetch(`${url}/healthz`).then(
      async (res) => `${res.status} ${await res.text()}`,
      () => 'no answer',
    );
    if (answer.startsWith('200 ')) break;
    seen.add(answer);
    await sleep(50);
  }
  const vms = (await execJson(url, ada, 'ls --json', 'ls')) as {
    vms: { vm_name: string; status: string }[];
  };
  assert.deepEqual(
    vms.vms.map((vm) => [vm.vm_name, vm.status]),
    [['slow', 'running']],
  );
  // The setup script's 1.5 s were seen as "starting", not as healthy.
  assert.ok(seen.has('503 {"error":"server is starting"}\n'), [...seen].join(' | '));
  assert.equal((await server.stop()).code, 0);
});
