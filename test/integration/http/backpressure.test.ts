// Backpressure on /exec streams (SPEC §6, §9): a client that reads nothing of a huge
// `ssh <vm>` answer slows the command down instead of making the server buffer its output;
// at most about 1 MiB waits per stream, and a client that leaves frees it at once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { rssGrowth, rssGrowthOver } from '../../helpers/rss.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const FAR = 4_000_000_000;

let svc: TestService;
let token: string;
before(async () => {
  svc = await startTestService({ commandDeadlineMs: 120_000 });
  token = await svc.token(`{"exp":${FAR},"cmds":["new","ssh"]}`);
  const res = await request(`${svc.url}/exec`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: 'new --name vm1',
  });
  assert.equal(res.statusCode, 200, await res.body.text());
});
after(() => svc.stop());

test('a client that reads nothing of 500 MB holds the server under 50 MB; leaving frees it', async () => {
  const baseline = process.memoryUsage().rss;
  const body = 'ssh vm1 head -c 500000000 /dev/zero';
  const { port } = new URL(svc.url);
  const socket = connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  socket.write(
    `POST /exec HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Length: ${body.length}\r\n\r\n${body}`,
  );
  // The answer has started streaming (past 1 MiB); from now on the client reads nothing.
  const [first] = (await once(socket, 'data')) as [Buffer];
  socket.pause();
  assert.match(first.toString('latin1'), /^HTTP\/1\.1 200 OK\r\n[^]*Trailer: X-Exec-Exit\r\n/);

  const growth = await rssGrowthOver(10_000, baseline);
  assert.ok(growth < 50, `the server grew by ${growth.toFixed(0)} MB`);

  const from = svc.logs.length;
  socket.destroy();
  // Leaving stops the command: its request is over and logged at once.
  for (let i = 0; i < 50 && !svc.logs.slice(from).some((l) => / cmd="ssh" /.test(l)); i++) {
    await sleep(100);
  }
  assert.ok(
    svc.logs.slice(from).some((l) => / cmd="ssh" /.test(l)),
    'the command stopped',
  );
  assert.ok(rssGrowth(baseline) < 50, `still ${rssGrowth(baseline).toFixed(0)} MB over`);
});
