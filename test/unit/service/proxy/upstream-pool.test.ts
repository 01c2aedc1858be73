// The VM proxy's pool of connections to VMs' servers (http/upstream-pool.ts): a connection given
// back is handed out again, to the same VM and port only, and closed once idle for 3 s, before
// a node:http server's 5 s would close it under a request.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { UpstreamPool } from '../../../../src/service/proxy/upstream-pool.js';
import type { VmRecord } from '../../../../src/service/store/index.js';

let server: Server;
let port: number;
before(async () => {
  server = createServer((socket) => socket.resume());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
after(() => new Promise((resolve) => server.close(resolve)));

const vm = (id: number) => ({ id }) as VmRecord;
const pool = () =>
  new UpstreamPool(
    (_vm, _port) =>
      new Promise<Socket>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => resolve(socket));
        socket.once('error', reject);
      }),
  );

test('a connection given back is taken again for its VM and port, never for another', async () => {
  const upstreams = pool();
  const first = await upstreams.open(vm(1), 8000);
  upstreams.give(first);
  assert.equal(upstreams.takeIdle(vm(2), 8000), null);
  assert.equal(upstreams.takeIdle(vm(1), 8001), null);
  assert.equal(upstreams.takeIdle(vm(1), 8000), first);
  assert.equal(upstreams.takeIdle(vm(1), 8000), null);
  first.socket.destroy();
  upstreams.close();
});

test('an idle connection is closed after 3 s, not before; the pool then has none', async () => {
  const upstreams = pool();
  const idle = await upstreams.open(vm(1), 8000);
  upstreams.give(idle);
  await sleep(2_000);
  assert.equal(idle.socket.destroyed, false);
  // The sweep runs every 0.5 s: closed by 3.5 s, later only on a busy machine.
  for (let i = 0; i < 100 && !idle.socket.destroyed; i++) await sleep(100);
  assert.equal(idle.socket.destroyed, true);
  assert.equal(upstreams.takeIdle(vm(1), 8000), null);
  upstreams.close();
});
