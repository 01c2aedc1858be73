// WebSocket through the VM proxy: undici's real WebSocket client, the echo server inside a real
// VM, and the proxy in between relaying the upgrade at the socket level.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type LookupFunction } from 'node:net';
import { Agent, WebSocket } from 'undici';
import {
  curl,
  FAR,
  headerText,
  startProxyFixture,
  withToken,
  type CurlResult,
  type ProxyFixture,
} from './fixture.js';

/** `*.localhost` is loopback (RFC 6761); the system resolver here does not know it, curl does. */
const loopback: LookupFunction = (_hostname, options, callback) => {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};
const dispatcher = new Agent({ connect: { lookup: loopback } });
after(() => dispatcher.close());

/** An open WebSocket and the messages it received, in order. */
interface OpenSocket {
  ws: WebSocket;
  next(): Promise<string>;
  closed: Promise<number>;
}

async function openSocket(url: string, headers: Record<string, string>): Promise<OpenSocket> {
  const ws = new WebSocket(url, { dispatcher, headers });
  const received: string[] = [];
  const waiting: ((text: string) => void)[] = [];
  ws.addEventListener('message', (event) => {
    const text = String(event.data);
    const waiter = waiting.shift();
    if (waiter === undefined) received.push(text);
    else waiter(text);
  });
  const closed = new Promise<number>((resolve) =>
    ws.addEventListener('close', (event) => resolve(event.code)),
  );
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve());
    ws.addEventListener('error', () => reject(new Error(`WebSocket to ${url} failed`)));
  });
  const next = () => {
    const text = received.shift();
    return text === undefined ? new Promise<string>((r) => waiting.push(r)) : Promise.resolve(text);
  };
  return { ws, next, closed };
}

/** curl's headers for a WebSocket handshake that it will not complete (curl 7.88 has no ws). */
const HANDSHAKE = [
  '-H',
  'Connection: Upgrade',
  '-H',
  'Upgrade: websocket',
  '-H',
  'Sec-WebSocket-Version: 13',
  '-H',
  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
];

function assertJsonError(r: CurlResult, status: number, message: string) {
  assert.equal(r.status, status, r.body);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.deepEqual(JSON.parse(r.body), { error: message });
}

describe('VM proxy: WebSocket upgrades', () => {
  let f: ProxyFixture;
  let token: string;
  before(async () => {
    f = await startProxyFixture();
    await f.createVm('vm1');
    await f.startEchoServer('vm1');
    token = await f.vmToken('vm1', `{"exp":${FAR},"ctx":{"room":"ü"}}`);
  });
  after(() => f.stop());

  test('messages echo through the proxy; the VM sees identity, not the token', async () => {
    const socket = await openSocket(`ws://vm1.localhost:${f.port}/chat?room=1`, {
      'X-Exectl-Authorization': `Bearer ${token}`,
      'X-Exectl-Email': 'forged@example.com',
    });
    const { rawHeaders } = JSON.parse(await socket.next()) as { rawHeaders: string[] };
    assert.equal(headerText(rawHeaders, 'upgrade'), 'websocket');
    assert.equal(headerText(rawHeaders, 'x-exectl-email'), 'owner@example.com');
    assert.equal(headerText(rawHeaders, 'x-exectl-token-ctx'), '{"room":"ü"}');
    assert.equal(headerText(rawHeaders, 'x-exectl-authorization'), undefined);
    assert.equal(headerText(rawHeaders, 'x-forwarded-host'), `vm1.localhost:${f.port}`);
    assert.ok(!rawHeaders.join('\n').includes('svc0.'));

    for (const text of ['hello', 'ünïcødé ✓', 'x'.repeat(5000)]) {
      socket.ws.send(text);
      assert.equal(await socket.next(), text);
    }
    socket.ws.close(1000);
    assert.equal(await socket.closed, 1000);
    assert.match(f.svc.logs.at(-1)!, / via=proxy key=SHA256:\S+ cmd="GET vm1" status=101 ms=/);
  });

  test('an upgrade without a valid token gets the same 401, whether the VM exists or not', async () => {
    for (const args of [[], withToken(await f.vmToken('vm2'))]) {
      const existing = await curl(f.vmUrl('vm1'), [...HANDSHAKE, ...args]);
      const missing = await curl(f.vmUrl('ghost'), [...HANDSHAKE, ...args]);
      const message =
        args.length === 0 ? 'missing or invalid Authorization header' : 'invalid token';
      assertJsonError(existing, 401, message);
      assertJsonError(missing, 401, message);
      assert.equal(
        existing.headers['www-authenticate'],
        'Bearer realm="vm1.localhost", Basic realm="vm1.localhost"',
      );
    }
  });

  test('502 for an upgrade when nothing listens on the VM port', async () => {
    const port = await f.createVm('silent');
    const r = await curl(f.vmUrl('silent'), [
      ...HANDSHAKE,
      ...withToken(await f.vmToken('silent')),
    ]);
    assertJsonError(r, 502, `vm "silent" is not answering on port ${port}`);
  });

  test('upgrades to the service itself are refused with 400', async () => {
    const r = await curl(`${f.svc.url}/exec`, HANDSHAKE);
    assertJsonError(r, 400, 'protocol upgrade is only available on VM addresses');
    const host = f.svc.url.slice('http://'.length);
    assert.ok(
      f.svc.logs.at(-1)!.includes(` via=http key=- cmd="GET /exec" host="${host}" status=400 ms=`),
      f.svc.logs.at(-1),
    );
  });
});

describe('VM proxy: an upgrade the VM server does not take (SPEC §6)', () => {
  let f: ProxyFixture;
  let token: string;
  before(async () => {
    f = await startProxyFixture();
    await f.createVm('plain');
    // Python's BaseHTTPRequestHandler: answers the upgrade request with a plain 200 and keeps
    // the connection, ready for whatever request follows on it.
    await f.startEchoServer('plain', 'python-server.py');
    token = await f.vmToken('plain');
  });
  after(() => f.stop());

  /** Sends `requests` in one write on one connection; resolves with all that came back. */
  const oneWrite = async (requests: string): Promise<string> => {
    const socket = connect(f.port, '127.0.0.1');
    await once(socket, 'connect');
    // The client keeps its side open: closing is the proxy's job.
    socket.write(requests);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    await once(socket, 'close');
    return Buffer.concat(chunks).toString('latin1');
  };
  const seen = async () => {
    const r = await curl(f.vmUrl('plain', '/seen'), withToken(token));
    assert.equal(r.status, 200, r.body);
    return JSON.parse(r.body) as [string, string | null][];
  };

  // SPEC §6: the proxy parses each request on a connection until a 101 hands it over. Before
  // the raw proxy the connection closed after the refused upgrade's answer instead.
  test(
    'the requests after it are parsed, checked and filtered like any other',
    {
      timeout: 20_000,
    },
    async () => {
      const host = `plain.localhost:${f.port}`;
      // One write: requests ride behind the upgrade request, one without a token, one with a
      // token and a forged identity, the last one closing the connection.
      const answer = await oneWrite(
        `GET /first HTTP/1.1\r\nHost: ${host}\r\nX-Exectl-Authorization: Bearer ${token}\r\n` +
          'Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n' +
          `GET /second HTTP/1.1\r\nHost: ${host}\r\nX-Exectl-Email: alice@example.com\r\n` +
          'X-Exectl-Token-Ctx: {"role":"admin"}\r\n\r\n' +
          `GET /third HTTP/1.1\r\nHost: ${host}\r\nX-Exectl-Authorization: Bearer ${token}\r\n` +
          'X_Exectl_Email: alice@example.com\r\nConnection: close\r\n\r\n',
      );
      const statuses = [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);
      assert.deepEqual(statuses, ['200', '401', '200'], answer);
      assert.match(answer, /"error":"missing or invalid Authorization header"/);

      assert.deepEqual(await seen(), [
        ['GET /first HTTP/1.1', 'owner@example.com'],
        ['GET /third HTTP/1.1', 'owner@example.com'],
      ]);
    },
  );

  test('X_Exectl_Email (underscores) never reaches a CGI/WSGI reader as the proxy’s header', async () => {
    const r = await curl(f.vmUrl('plain', '/underscores'), [
      ...withToken(token),
      '-H',
      'X_Exectl_Email: mallory@example.com',
      '-H',
      'X-Exectl_User_Id: usr_FORGED',
      '-H',
      'x_exectl_token_ctx: {"role":"admin"}',
      '-H',
      'X_Forwarded_For: 6.6.6.6',
    ]);
    assert.equal(r.status, 200, r.body);
    const { environ } = JSON.parse(r.body) as { environ: Record<string, string> };
    const owner = f.svc.service.store.findAccountByEmail(f.svc.owner.email)!;
    assert.equal(environ.HTTP_X_EXECTL_EMAIL, 'owner@example.com');
    assert.equal(environ.HTTP_X_EXECTL_USER_ID, owner.userId);
    assert.equal(environ.HTTP_X_EXECTL_TOKEN_CTX, undefined);
    assert.equal(environ.HTTP_X_FORWARDED_FOR, '127.0.0.1');

    // On a public VM, without a token: nobody is named at all.
    await f.exec('share set-public plain');
    try {
      const anonymous = await curl(f.vmUrl('plain', '/anonymous'), [
        '-H',
        'X_Exectl_Email: mallory@example.com',
      ]);
      assert.equal(anonymous.status, 200, anonymous.body);
      const seenBy = (JSON.parse(anonymous.body) as { environ: Record<string, string> }).environ;
      assert.equal(seenBy.HTTP_X_EXECTL_EMAIL, undefined);
    } finally {
      await f.exec('share set-private plain');
    }
  });
});

describe('VM proxy: shutdown with an open WebSocket', () => {
  const name = 'closing the service cuts the tunnel instead of waiting for it';
  test(name, { timeout: 60_000 }, async () => {
    const f = await startProxyFixture();
    let stopped = false;
    try {
      await f.createVm('vm1');
      await f.startEchoServer('vm1');
      const socket = await openSocket(`ws://vm1.localhost:${f.port}/`, {
        'X-Exectl-Authorization': `Bearer ${await f.vmToken('vm1')}`,
      });
      await socket.next();
      await f.stop();
      stopped = true;
      // 1006: the connection ended without a closing handshake.
      assert.equal(await socket.closed, 1006);
    } finally {
      if (!stopped) await f.stop();
    }
  });
});
