// GET /healthz (SPEC §7): 200 {"status":"ok","version","uptime_s"} once every listener is up,
// with no token and nothing else revealed; other methods 405 as /exec does; 503 before ready.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHealthHandler } from '../../../src/service/http/healthz.js';
import { run } from '../../helpers/keys.js';
import { useTestService } from '../../helpers/service.js';

const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

const svc = useTestService({ sshListen: { host: '127.0.0.1', port: 0 } });

test('GET /healthz: 200 with exactly status, version and uptime_s; no token needed', async () => {
  const res = await fetch(`${svc.url}/healthz`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/json');
  assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f]{16}$/);
  const text = await res.text();
  assert.match(text, /^\{"status":"ok","version":"[^"]+","uptime_s":\d+\}\n$/);
  const body = JSON.parse(text) as { uptime_s: number };
  assert.deepEqual(body, { status: 'ok', version: VERSION, uptime_s: body.uptime_s });
  assert.ok(body.uptime_s >= 0 && body.uptime_s < 60, text);
  // A query string changes nothing; the request is logged (at debug level) with its Host.
  assert.equal((await fetch(`${svc.url}/healthz?probe=1`)).status, 200);
  const host = svc.url.slice('http://'.length);
  assert.ok(
    svc.logs.some((l) =>
      l.includes(` via=http key=- cmd="GET /healthz" host="${host}" status=200 `),
    ),
  );
});

test('HEAD /healthz: 200, no body (curl -I)', async () => {
  const r = await run('curl', ['-sS', '-I', `${svc.url}/healthz`]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(r.stdout, /\r\nContent-Type: application\/json\r\n/i);
});

test('any other method: 405 method not allowed with Allow: GET, HEAD', async () => {
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
    const res = await fetch(`${svc.url}/healthz`, { method });
    assert.equal(res.status, 405, method);
    assert.equal(res.headers.get('allow'), 'GET, HEAD', method);
    assert.deepEqual(await res.json(), { error: 'method not allowed' }, method);
  }
});

test('before every listener is up: 503 server is starting', async () => {
  let ready = false;
  const logs: string[] = [];
  const health = createHealthHandler({
    log: (line) => logs.push(line),
    version: '9.9.9',
    ready: () => ready,
  });
  const server: Server = createServer((req, res) => void health(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`;
    const early = await fetch(url);
    assert.equal(early.status, 503);
    assert.deepEqual(await early.json(), { error: 'server is starting' });
    ready = true;
    const res = await fetch(url);
    assert.deepEqual(await res.json(), { status: 'ok', version: '9.9.9', uptime_s: 0 });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
