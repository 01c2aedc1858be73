// The HTTP listener gives each new connection to the VM proxy first (http-server.ts's claim);
// one whose first request is the service's own goes back to node:http with the bytes read so
// far, and node:http reads it natively from then on. Nothing may be lost or reordered on the
// way: requests pipelined in the first read, a first head that trickles in over several reads,
// and the requests that follow on the same connection, in plain TCP and under TLS.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { run } from '../../helpers/keys.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

const HEALTH = (host: string) => `GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\n`;

/** Reads from `socket` until `count` whole answers (all with Content-Length) have arrived. */
function answers(socket: Socket, count: number): Promise<{ status: number; body: string }[]> {
  return new Promise((resolve, reject) => {
    let text = '';
    const parsed: { status: number; body: string }[] = [];
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      for (;;) {
        const split = text.indexOf('\r\n\r\n');
        if (split === -1) break;
        const head = text.slice(0, split);
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? NaN);
        if (text.length < split + 4 + length) break;
        parsed.push({
          status: Number(head.slice(9, 12)),
          body: text.slice(split + 4, split + 4 + length),
        });
        text = text.slice(split + 4 + length);
      }
      if (parsed.length < count) return;
      socket.removeListener('data', onData);
      resolve(parsed);
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`closed after ${parsed.length} answers`)));
  });
}

function suite(name: string, open: (svc: TestService) => Promise<Socket>, tls: boolean): void {
  describe(name, () => {
    let dir: TempDir;
    let svc: TestService;
    before(async () => {
      dir = await createTempDir('handed-back');
      let certificate = {};
      if (tls) {
        const [cert, key] = [dir.join('cert.pem'), dir.join('key.pem')];
        const made = await run('openssl', [
          ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'],
          ...['-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'],
        ]);
        assert.equal(made.code, 0, made.stderr);
        certificate = { tls: { cert: await readFile(cert), key: await readFile(key) } };
      }
      svc = await startTestService(certificate);
    });
    after(async () => {
      await svc.stop();
      await dir.remove();
    });

    test('three requests in the first read: three answers in order, then more on the same connection', async () => {
      const socket = await open(svc);
      const host = new URL(svc.url).host;
      const first = answers(socket, 3);
      socket.write(HEALTH(host) + `GET /nowhere HTTP/1.1\r\nHost: ${host}\r\n\r\n` + HEALTH(host));
      assert.deepEqual(
        (await first).map((a) => a.status),
        [200, 404, 200],
      );
      // Read by node:http's own parser from now on.
      for (let i = 0; i < 3; i++) {
        const next = answers(socket, 1);
        socket.write(HEALTH(host));
        const [answer] = await next;
        assert.equal(answer!.status, 200);
        assert.match(answer!.body, /^\{"status":"ok",/);
      }
      socket.destroy();
    });

    test('a first head that arrives a few bytes at a time is answered, and so is the next', async () => {
      const socket = await open(svc);
      const host = new URL(svc.url).host;
      const request = HEALTH(host);
      const first = answers(socket, 1);
      for (let at = 0; at < request.length; at += 7) {
        socket.write(request.slice(at, at + 7));
        // Each piece its own read on the server: wait until it has left (nothing comes back
        // before the head is whole).
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      assert.equal((await first)[0]!.status, 200);
      const second = answers(socket, 2);
      socket.write(HEALTH(host) + HEALTH(host));
      assert.deepEqual(
        (await second).map((a) => a.status),
        [200, 200],
      );
      socket.destroy();
    });

    test('blank lines before the first head: a few are skipped, as node:http does', async () => {
      const socket = await open(svc);
      const first = answers(socket, 1);
      socket.write('\r\n\r\n\n' + HEALTH(new URL(svc.url).host));
      assert.equal((await first)[0]!.status, 200);
      socket.destroy();
    });

    test('only blank lines, on and on: 400 and closed once past twice the header limit, not kept until the head timeout', async () => {
      const socket = await open(svc);
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('error', () => {}); // writes after the close
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      const blank = Buffer.from('\r\n'.repeat(8 * 1024)); // 16 KiB a write
      let sent = 0;
      while (!socket.destroyed && !socket.writableEnded && sent < 64 * 2 ** 20 && text === '') {
        if (!socket.write(blank)) {
          await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
        }
        sent += blank.length;
      }
      await closed;
      assert.match(text, /^HTTP\/1\.1 400 Bad Request\r\n/);
      assert.ok(sent < 64 * 2 ** 20, `${sent} bytes sent and the connection still open`);
    });
  });
}

suite(
  'plain TCP',
  (svc) =>
    new Promise((resolve, reject) => {
      const url = new URL(svc.url);
      const socket = connectTcp(Number(url.port), url.hostname, () => resolve(socket));
      socket.once('error', reject);
    }),
  false,
);

suite(
  'TLS',
  (svc) =>
    new Promise((resolve, reject) => {
      const url = new URL(svc.url);
      const socket = connectTls(
        { port: Number(url.port), host: url.hostname, rejectUnauthorized: false },
        () => resolve(socket),
      );
      socket.once('error', reject);
    }),
  true,
);
