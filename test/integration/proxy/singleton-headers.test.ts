// Headers a request may carry once only (src/service/http/singleton-headers.ts), over a raw
// socket as an attacker sends them: two `Host` headers were routed to the VM the first names
// while the VM's server saw the second; two `Authorization` headers let an exectl token behind
// the VM app's own Basic login through to the VM. Both are now 400 before anything reads them,
// on plain requests, upgrades and /exec alike.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startProxyFixture, type ProxyFixture } from './fixture.js';

// Sends `head` (and nothing more) on a fresh connection; resolves with all the server wrote
// once it closes the connection (every request here says `Connection: close` or is refused),
// or once it has been silent for 10 s (a tunnel the old code opened stays up).
function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.setTimeout(10_000, () => socket.destroy());
    socket.write(head);
  });
}

const statusLine = (answer: string) => answer.split('\r\n')[0];
const body = (answer: string) => answer.slice(answer.indexOf('\r\n\r\n') + 4);
const FRAMING_REFUSAL = 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n';
const refusal = (header: string) =>
  `{"error":"the request has more than one ${header} header: send exactly one"}\n`;

describe('headers a request carries once only: a second is 400', () => {
  let f: ProxyFixture;
  let host: (vm: string) => string;
  before(async () => {
    f = await startProxyFixture();
    for (const vm of ['alpha', 'beta']) {
      await f.createVm(vm);
      await f.exec(`share set-public ${vm}`);
      await f.startEchoServer(vm);
    }
    host = (vm) => `Host: ${vm}.localhost:${f.port}\r\n`;
  });
  after(() => f.stop());

  test('one Host reaches its VM (the control)', async () => {
    const answer = await rawRequest(
      f.port,
      `GET /one HTTP/1.1\r\n${host('alpha')}Connection: close\r\n\r\n`,
    );
    assert.equal(statusLine(answer), 'HTTP/1.1 201 Echoed');
    assert.match(body(answer), /"url":"\/one"/);
  });

  for (const [name, hosts] of [
    ['two VMs', ['alpha', 'beta']],
    ['the same VM twice', ['alpha', 'alpha']],
  ] as const) {
    test(`two Host headers (${name}) → 400, nothing forwarded`, async () => {
      const answer = await rawRequest(
        f.port,
        `GET /two HTTP/1.1\r\n${host(hosts[0])}${host(hosts[1])}Connection: close\r\n\r\n`,
      );
      // The VM proxy frames requests itself: a second Host is a smuggling shape there, refused
      // as node:http refuses bad framing (raw 400, the connection closed: nothing after it is read).
      assert.equal(answer, FRAMING_REFUSAL);
    });
  }

  test('two Host headers, in any case, on an upgrade → 400 on the raw socket', async () => {
    const answer = await rawRequest(
      f.port,
      `GET /ws HTTP/1.1\r\n${host('alpha')}HOST: beta.localhost:${f.port}\r\n` +
        'Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
    );
    assert.equal(answer, FRAMING_REFUSAL);
  });

  test('two Authorization headers (the app’s Basic, then an exectl token) → 400', async () => {
    const answer = await rawRequest(
      f.port,
      `GET / HTTP/1.1\r\n${host('alpha')}Authorization: Basic dXNlcjpwYXNz\r\n` +
        'Authorization: Bearer svc1.secret-token\r\nConnection: close\r\n\r\n',
    );
    assert.equal(statusLine(answer), 'HTTP/1.1 400 Bad Request');
    assert.equal(body(answer), refusal('Authorization'));
  });

  test('two Authorization headers on /exec → 400', async () => {
    const line = 'whoami';
    const answer = await rawRequest(
      f.port,
      `POST /exec HTTP/1.1\r\nHost: 127.0.0.1:${f.port}\r\nAuthorization: Bearer a\r\n` +
        `Authorization: Bearer b\r\nContent-Length: ${line.length}\r\nConnection: close\r\n\r\n${line}`,
    );
    assert.equal(statusLine(answer), 'HTTP/1.1 400 Bad Request');
    assert.equal(body(answer), refusal('Authorization'));
  });

  test('two Content-Length or Transfer-Encoding headers: Node refuses them itself', async () => {
    for (const twice of [
      'Content-Length: 1\r\nContent-Length: 1\r\n\r\nx',
      'Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ]) {
      const answer = await rawRequest(f.port, `POST / HTTP/1.1\r\n${host('alpha')}${twice}`);
      assert.equal(statusLine(answer), 'HTTP/1.1 400 Bad Request', twice);
    }
  });
});
