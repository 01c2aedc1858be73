// Starting on a taken port, and closing: running commands are cancelled and told why, idle
// sessions are ended, and the port is released.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRegistry } from '../../../src/service/commands/index.js';
import { ExectlError } from '../../../src/errors.js';
import { startSshFrontEnd, VmAddressListeners } from '../../../src/service/ssh/index.js';
import { runUntilCancelled } from './fixtures.js';
import { startSshHarness, type SshHarness } from './harness.js';
import { PtyClient } from './pty-client.js';

let h: SshHarness | undefined;
const clients: PtyClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
  await h?.close();
  h = undefined;
});

async function harness(): Promise<SshHarness> {
  const registry = buildRegistry();
  registry.register(runUntilCancelled);
  h = await startSshHarness({ registry });
  return h;
}

test('close: a running command is cancelled with a message, and its status is 130', async () => {
  const s = await harness();
  const c = new PtyClient(s.sshArgs('run-until-cancelled'));
  clients.push(c);
  await c.waitFor('running\r\n');
  await s.frontEnd.close();
  await c.waitFor('error: the server is shutting down\r\n');
  assert.equal(await c.exitCode(), 130);
});

test('close: an idle REPL is told and ended with status 0; the port is released', async () => {
  const s = await harness();
  const c = new PtyClient(s.sshArgs(undefined));
  clients.push(c);
  await c.waitFor('exectl> ');
  await s.frontEnd.close();
  await c.waitFor('the server is shutting down\r\n');
  assert.equal(await c.exitCode(), 0);

  const after = await s.ssh('whoami');
  assert.equal(after.code, 255);
  assert.match(after.stderr, /Connection refused/);
});

test('close: calling it twice is harmless', async () => {
  const s = await harness();
  await Promise.all([s.frontEnd.close(), s.frontEnd.close()]);
  await s.frontEnd.close();
});

test('start: a port already taken is a clear usage error', async () => {
  const s = await harness();
  const { port } = s.frontEnd.address;
  await assert.rejects(
    startSshFrontEnd({
      deps: s.deps,
      registry: buildRegistry(),
      listen: { host: '127.0.0.1', port },
      hostKeyPath: s.hostKeyPath,
      rateLimiter: null,
      log: () => {},
      vmAddresses: new VmAddressListeners(false, s.deps.store, () => {}),
    }),
    (err: unknown) => {
      assert.ok(err instanceof ExectlError);
      assert.equal(err.code, 'cannot_start');
      assert.equal(err.message, `cannot listen for SSH on 127.0.0.1:${port}: EADDRINUSE`);
      return true;
    },
  );
});
