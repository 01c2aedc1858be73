// The example of docs/library.md: this file is quoted there whole.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, startServer, type ExecError, type RunningServer } from 'exectl';

let server: RunningServer;
let client: Client;

before(async () => {
  // A temporary data folder and free ports; an owner account with a fresh key pair.
  server = await startServer();
  client = new Client({ url: server.url, token: await server.mint() });
});
after(() => server.stop());

test('a command runs in a new VM', async () => {
  const vm = (await client.exec('new --name web')) as { vm_name: string };
  assert.equal(vm.vm_name, 'web');
  const { exitCode, output } = await client.ssh('web', ['sh', '-c', 'echo hello; exit 3']);
  assert.equal(exitCode, 3);
  assert.equal(output.toString(), 'hello\n');
});

test('the client copes with an unavailable server', async () => {
  server.faults.add({ command: 'whoami', status: 503, times: 1 });
  await assert.rejects(client.exec('whoami'), (err: ExecError) => {
    assert.equal(err.status, 503);
    assert.equal(err.code, 'unavailable');
    return true;
  });
  const me = (await client.exec('whoami')) as { email: string };
  assert.equal(me.email, server.owner);
});
