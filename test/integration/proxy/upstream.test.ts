// The proxy's connections to VM servers (issue 11): kept alive and reused from one request to
// the next, never trusted blindly when the VM's server closed one, and never a place where a
// client that reads nothing makes the server buffer (SPEC §6, §9). Real servers in VMs, curl,
// and raw sockets for the client that stops reading.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { rssGrowth, rssGrowthOver } from '../../helpers/rss.js';
import { curl, echoOf, startProxyFixture, withToken, type ProxyFixture } from './fixture.js';

describe('VM proxy: connections to the VM server', () => {
  let f: ProxyFixture;
  before(async () => {
    f = await startProxyFixture({ commandDeadlineMs: 120_000 });
  });
  after(() => f.stop());

  test('one connection serves request after request', async () => {
    await f.createVm('echo');
    await f.startEchoServer('echo');
    const token = await f.vmToken('echo');
    const ports = new Set<number>();
    for (let i = 0; i < 5; i++) {
      ports.add(echoOf(await curl(f.vmUrl('echo', `/${i}`), withToken(token))).remotePort);
    }
    assert.equal(ports.size, 1, `came on ports ${[...ports].join(', ')}`);
  });

  test('a connection the VM server closed: sent again on a new one, unless it had a body', async () => {
    const port = await f.createVm('closing');
    await f.startEchoServer('closing', 'closing-server.mjs');
    const token = await f.vmToken('closing');
    const get = async (path: string) => {
      const r = await curl(f.vmUrl('closing', path), withToken(token));
      assert.equal(r.status, 200, r.body);
      return JSON.parse(r.body) as { connection: number; line: string };
    };
    // Each request after the first finds its pooled connection closed under it. (The fixture's
    // port probe was a connection too.)
    const first = await get('/a');
    assert.equal(first.line, 'GET /a HTTP/1.1');
    assert.deepEqual(await get('/b'), {
      connection: first.connection + 1,
      line: 'GET /b HTTP/1.1',
    });
    assert.deepEqual(await get('/c'), {
      connection: first.connection + 2,
      line: 'GET /c HTTP/1.1',
    });

    // A body may be partly sent already: never sent twice, the client gets the 502.
    const posted = await curl(f.vmUrl('closing', '/d'), [...withToken(token), '-d', 'body']);
    assert.equal(posted.status, 502, posted.body);
    assert.equal(
      (JSON.parse(posted.body) as { error: string }).error,
      `vm "closing" is not answering on port ${port}`,
    );
  });

  test('a client that reads nothing of 500 MB holds the server under 50 MB; leaving frees it', async () => {
    await f.createVm('zeros');
    await f.startEchoServer('zeros', 'zeros-server.mjs');
    const token = await f.vmToken('zeros');
    const baseline = process.memoryUsage().rss;
    const socket = connect(f.port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      `GET /zeros HTTP/1.1\r\nHost: zeros.localhost:${f.port}\r\n` +
        `X-Exectl-Authorization: Bearer ${token}\r\n\r\n`,
    );
    // The answer has started; from now on the client reads nothing.
    const [first] = (await once(socket, 'data')) as [Buffer];
    socket.pause();
    assert.match(first.toString('latin1'), /^HTTP\/1\.1 200 OK\r\n/);

    const growth = await rssGrowthOver(10_000, baseline);
    assert.ok(growth < 50, `the server grew by ${growth.toFixed(0)} MB`);

    const from = f.svc.logs.length;
    socket.destroy();
    // Leaving ends the exchange at once: its log line comes, the VM's answer is cut.
    for (
      let i = 0;
      i < 50 && !f.svc.logs.slice(from).some((l) => / cmd="GET zeros" /.test(l));
      i++
    ) {
      await sleep(100);
    }
    assert.ok(
      f.svc.logs.slice(from).some((l) => / cmd="GET zeros" status=200 /.test(l)),
      f.svc.logs.slice(from).join('\n'),
    );
    assert.ok(rssGrowth(baseline) < 50, `still ${rssGrowth(baseline).toFixed(0)} MB over`);
    // The VM's server saw its client go (and stopped its `head`).
    let log = '';
    for (let i = 0; i < 50 && !log.includes('closed'); i++) {
      log = await f.runInVm('zeros', 'cat "$HOME/echo.log"');
      if (!log.includes('closed')) await sleep(100);
    }
    assert.equal(log, 'closed\n');
  });
});
