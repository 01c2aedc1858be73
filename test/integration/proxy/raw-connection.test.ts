// The VM proxy on the raw socket (SPEC §6, issue 24): exact bytes written to the listener,
// exact answers read back, and the VM's server (raw-server.mjs, inside a VM) asked what reached
// it. Every request on a connection is checked and filtered; what node:http would refuse, or a
// proxy must not guess at (smuggling shapes), is a 400 and never reaches the VM.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { curl, startProxyFixture, withToken, type ProxyFixture } from './fixture.js';

/** The body of the one answer in `answer` (latin1), de-chunked when it came chunked. */
function bodyOf(answer: string): string {
  const split = answer.indexOf('\r\n\r\n');
  const rest = answer.slice(split + 4);
  if (!/^transfer-encoding: chunked$/im.test(answer.slice(0, split))) return rest;
  let body = '';
  for (let at = 0; ;) {
    const line = rest.indexOf('\r\n', at);
    const size = parseInt(rest.slice(at, line), 16);
    if (size === 0) return body;
    body += rest.slice(line + 2, line + 2 + size);
    at = line + 2 + size + 2;
  }
}

// The server runs in this process: its buffers are this process's (measured after a full GC).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** What raw-server.mjs records of each request: [method, url, raw headers]. */
type Seen = [string, string, string[]][];

describe('VM proxy: raw connections (SPEC §6)', () => {
  let f: ProxyFixture;
  let token: string;
  let host: string;
  before(async () => {
    f = await startProxyFixture();
    await f.createVm('raw');
    await f.startEchoServer('raw', 'raw-server.mjs');
    token = await f.vmToken('raw');
    host = `raw.localhost:${f.port}`;
  });
  after(() => f.stop());

  /** Writes `bytes` on a new connection and reads until the proxy closes it. */
  const exchange = async (bytes: string | Buffer): Promise<string> => {
    const socket = await open();
    socket.write(bytes);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    await once(socket, 'close');
    return Buffer.concat(chunks).toString('latin1');
  };
  const open = async (): Promise<Socket> => {
    const socket = connect(f.port, '127.0.0.1');
    await once(socket, 'connect');
    return socket;
  };
  const seen = async (): Promise<Seen> => {
    const r = await curl(`http://${host}/seen`, withToken(token));
    assert.equal(r.status, 200, r.body);
    return (JSON.parse(r.body) as Seen).filter(([, url]) => url !== '/seen');
  };
  const authorized = () => `X-Exectl-Authorization: Bearer ${token}\r\n`;
  const statuses = (answer: string) =>
    [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

  test('pipelined: a request without a token after a good one is 401 and never reaches the VM', async () => {
    const before = await seen();
    const answer = await exchange(
      `GET /one HTTP/1.1\r\nHost: ${host}\r\n${authorized()}\r\n` +
        `GET /two HTTP/1.1\r\nHost: ${host}\r\n\r\n` +
        `GET /three HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer svc0.forged\r\n\r\n` +
        `GET /four HTTP/1.1\r\nHost: ${host}\r\n${authorized()}Connection: close\r\n\r\n`,
    );
    assert.deepEqual(statuses(answer), [200, 401, 401, 200], answer);
    const urls = (await seen()).slice(before.length).map(([, url]) => url);
    assert.deepEqual(urls, ['/one', '/four']);
  });

  test('forged X-Exectl-* and X_Exectl_* on the Nth request are removed', async () => {
    const before = await seen();
    const forged =
      'X-Exectl-Email: mallory@example.com\r\nX_Exectl_User_Id: usr_FORGED\r\n' +
      'x-exectl-token-ctx: {"role":"admin"}\r\nX-Forwarded-For: 6.6.6.6\r\n';
    const answer = await exchange(
      `GET /a HTTP/1.1\r\nHost: ${host}\r\n${authorized()}\r\n` +
        `GET /b HTTP/1.1\r\nHost: ${host}\r\n${authorized()}${forged}\r\n` +
        `GET /c HTTP/1.1\r\nHost: ${host}\r\n${authorized()}${forged}Connection: close\r\n\r\n`,
    );
    assert.deepEqual(statuses(answer), [200, 200, 200], answer);
    const owner = f.svc.service.store.findAccountByEmail(f.svc.owner.email)!;
    for (const [, url, raw] of (await seen()).slice(before.length)) {
      const pairs = new Map<string, string[]>();
      for (let i = 0; i + 1 < raw.length; i += 2) {
        const name = raw[i]!.toLowerCase().replaceAll('_', '-');
        pairs.set(name, [...(pairs.get(name) ?? []), raw[i + 1]!]);
      }
      assert.deepEqual(pairs.get('x-exectl-email'), ['owner@example.com'], url);
      assert.deepEqual(pairs.get('x-exectl-user-id'), [owner.userId], url);
      assert.equal(pairs.get('x-exectl-token-ctx'), undefined, url);
      assert.deepEqual(pairs.get('x-forwarded-for'), ['127.0.0.1'], url);
      assert.equal(pairs.get('x-exectl-authorization'), undefined, url);
    }
  });

  // Each shape is refused as node:http would (or more strictly), with node:http's own 400.
  const smuggling: [string, string][] = [
    [
      'Content-Length with Transfer-Encoding',
      'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n',
    ],
    ['two different Content-Length', 'Content-Length: 5\r\nContent-Length: 6\r\n'],
    ['two equal Content-Length', 'Content-Length: 5\r\nContent-Length: 5\r\n'],
    ['Transfer-Encoding not ending in chunked', 'Transfer-Encoding: chunked, identity\r\n'],
    ['Transfer-Encoding: gzip alone', 'Transfer-Encoding: gzip\r\n'],
    ['Transfer-Encoding: xchunked', 'Transfer-Encoding: xchunked\r\n'],
    ['a space before the colon', 'Transfer-Encoding : chunked\r\n'],
    ['obs-fold', 'X-Folded: a\r\n b\r\n'],
    ['a bare LF ending a header line', 'X-Bare: lf\n'],
    ['a bare CR inside a header line', 'X-Bare: a\rb\r\n'],
    ['a second Host', `Host: other.localhost:${0}\r\n`],
    ['the same Host twice', 'HOST: SAME\r\n'],
  ];
  for (const [name, lines] of smuggling) {
    test(`smuggling shape: ${name} → 400, nothing reaches the VM`, async () => {
      const before = await seen();
      const head = (path: string) => `POST ${path} HTTP/1.1\r\nHost: ${host}\r\n${authorized()}`;
      const shaped = lines.replace('SAME', host);
      // Alone, and riding behind a good request on the same connection.
      const alone = await exchange(`${head('/smuggled')}${shaped}\r\n0\r\n\r\nhello`);
      assert.equal(alone, 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      const behind = await exchange(
        `${head('/good')}Content-Length: 0\r\n\r\n${head('/smuggled')}${shaped}\r\n0\r\n\r\nhello`,
      );
      assert.deepEqual(statuses(behind), [200], behind);
      const urls = (await seen()).slice(before.length).map(([, url]) => url);
      assert.deepEqual(urls, ['/good']);
    });
  }

  test('a chunked upload reaches the VM whole, with its trailers (forged ones removed)', async () => {
    const parts = ['hello ', 'chunked ', 'world'];
    const body = parts.map((p) => `${p.length.toString(16)}\r\n${p}\r\n`).join('');
    const answer = await exchange(
      `POST /upload HTTP/1.1\r\nHost: ${host}\r\n${authorized()}Transfer-Encoding: chunked\r\n` +
        `Trailer: X-Checksum\r\nConnection: close\r\n\r\n${body}0\r\n` +
        'X-Checksum: abc123\r\nX-Exectl-Email: mallory@example.com\r\n\r\n',
    );
    assert.deepEqual(statuses(answer), [200], answer);
    const record = JSON.parse(bodyOf(answer)) as {
      rawTrailers: string[];
      bodyBytes: number;
      bodySha256: string;
    };
    const text = parts.join('');
    assert.equal(record.bodyBytes, text.length);
    assert.equal(record.bodySha256, createHash('sha256').update(text).digest('hex'));
    assert.deepEqual(record.rawTrailers, ['X-Checksum', 'abc123']);
  });

  test('20 MB up and 20 MB down arrive byte for byte', { timeout: 120_000 }, async () => {
    const size = 20 * 1024 * 1024;
    const up = Buffer.alloc(size);
    for (let i = 0; i < size; i++) up[i] = (i * 31 + (i >> 11)) & 0xff;
    const sent = await exchange(
      Buffer.concat([
        Buffer.from(
          `PUT /big HTTP/1.1\r\nHost: ${host}\r\n${authorized()}Content-Length: ${size}\r\n` +
            'Connection: close\r\n\r\n',
        ),
        up,
      ]),
    );
    const record = JSON.parse(bodyOf(sent)) as {
      bodyBytes: number;
      bodySha256: string;
    };
    assert.equal(record.bodyBytes, size);
    assert.equal(record.bodySha256, createHash('sha256').update(up).digest('hex'));

    const down = await exchange(
      `GET /bytes?n=${size} HTTP/1.1\r\nHost: ${host}\r\n${authorized()}Connection: close\r\n\r\n`,
    );
    const bytes = Buffer.from(bodyOf(down), 'latin1');
    const expected = Buffer.alloc(size);
    for (let i = 0; i < size; i++) expected[i] = (i * 7 + (i >> 13)) & 0xff;
    assert.equal(bytes.length, size);
    assert.ok(bytes.equals(expected), 'the download differs from what the VM sent');
  });

  test(
    'a client that reads nothing holds at most about 1 MiB of its stream in the server',
    {
      timeout: 120_000,
    },
    async () => {
      const size = 256 * 1024 * 1024;
      const written = async () => {
        const r = await curl(`http://${host}/written`, withToken(token));
        return Number(r.body);
      };
      gc();
      const before = process.memoryUsage().arrayBuffers;
      const socket = await open();
      socket.write(`GET /bytes?n=${size} HTTP/1.1\r\nHost: ${host}\r\n${authorized()}\r\n`);
      const [first] = (await once(socket, 'data')) as [Buffer];
      socket.pause();
      assert.match(first.toString('latin1'), /^HTTP\/1\.1 200 OK\r\n/);
      // Bounded poll: the VM's server stops writing once every buffer on the way is full.
      let last = -1;
      for (let same = 0, i = 0; same < 10; i++) {
        assert.ok(i < 600, 'the VM never stopped writing: no backpressure reached it');
        const now = await written();
        same = now === last ? same + 1 : 0;
        last = now;
        await sleep(100);
      }
      assert.ok(last < size / 2, `the VM wrote ${last} bytes to a client that reads nothing`);
      gc();
      const held = process.memoryUsage().arrayBuffers - before;
      assert.ok(held < 2 * 1024 * 1024, `the server holds ${held} bytes of the stream`);
      socket.destroy();
    },
  );
});
