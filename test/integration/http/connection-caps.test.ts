// Idle connections (SPEC §7): the HTTP listener holds at most so many connections per client
// address and in all, closes the excess at once, and closes a connection that sends no request
// within the headers timeout. The flood comes from another process (its descriptors are not
// the server's), from loopback addresses of its own (127.0.0.2 and up are other clients).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConnectionLimits } from '../../../src/service/http/connection-caps.js';
import { healthz, probeHealthz } from '../../helpers/healthz-probe.js';
import { run } from '../../helpers/keys.js';
import { createTempDir } from '../../helpers/tmp.js';
import { holdIdleConnections, type IdleConnections } from '../../helpers/idle-connections.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const LIMITS: ConnectionLimits = {
  perAddress: 20,
  total: 60,
  headersTimeoutMs: 1_500,
  keepAliveTimeoutMs: 1_000,
};
const FLOOD = 400;

/** The server's open descriptors: it runs in this process. */
const openDescriptors = () => readdirSync('/proc/self/fd').length;

/** Waits until `done()`, checking every 20 ms, for at most `ms`; says whether it came. */
async function until(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function service(limits: ConnectionLimits): Promise<TestService> {
  const svc = await startTestService({ connections: limits });
  cleanups.push(() => svc.stop());
  return svc;
}

function hold(svc: TestService, from: string, count: number): IdleConnections {
  const idle = holdIdleConnections(Number(new URL(svc.url).port), from, count);
  cleanups.push(() => idle.stop());
  return idle;
}

test('an idle flood from one address: descriptors stay bounded, another address is served, the idle ones are closed', async () => {
  const svc = await service(LIMITS);
  const before = openDescriptors();
  let most = before;
  const flood = hold(svc, '127.0.0.1', FLOOD);
  // Another address is served at once meanwhile: p99 under 1 s (wide: it takes milliseconds).
  const probe = probeHealthz(
    svc.url,
    '127.0.0.2',
    until(() => flood.closed() >= FLOOD - LIMITS.perAddress, 30_000),
  );
  // A few for the server's own work beside the connections (a log, a timer's handle).
  const bound = before + LIMITS.perAddress + 10;
  // All but the capped ones are closed at once; meanwhile the descriptors never pass the cap.
  await until(() => {
    most = Math.max(most, openDescriptors());
    return flood.closed() >= FLOOD - LIMITS.perAddress || most > bound;
  }, 30_000);
  assert.ok(most <= bound, `${most - before} descriptors opened`);
  assert.ok(flood.closed() >= FLOOD - LIMITS.perAddress, `${flood.closed()} of ${FLOOD} closed`);
  const { statuses, p99Ms } = await probe;
  assert.deepEqual(new Set(statuses), new Set([200]));
  assert.ok(p99Ms < 1_000, `p99 ${p99Ms} ms`);
  // The held ones sent nothing: closed once the headers timeout (1.5 s) has passed.
  assert.ok(await until(() => flood.closed() === FLOOD, 30_000), `${flood.closed()} closed`);
  assert.ok(await until(() => openDescriptors() <= before + 5, 10_000), 'descriptors left open');
  assert.equal(await healthz(svc.url, '127.0.0.1'), 200);
});

test('the cap in all: once reached, a new address is refused at once; a freed place is taken again', async () => {
  // Long timeouts: the held connections stay for the whole test.
  const svc = await service({ ...LIMITS, headersTimeoutMs: 120_000 });
  const floods = ['127.0.0.3', '127.0.0.4', '127.0.0.5'].map((from) =>
    hold(svc, from, LIMITS.perAddress + 5),
  );
  // Each address keeps its 20, past which its connections are closed: 60 in all, the cap.
  for (const flood of floods) {
    assert.ok(await until(() => flood.closed() === 5, 30_000), `${flood.closed()} closed`);
  }
  assert.match(String(await healthz(svc.url, '127.0.0.6')), /^(ECONNRESET|EPIPE)$/);
  // The server sees one address's connections end (in its own time), and takes new ones again.
  await floods[0]!.stop();
  let status: number | string = 'not asked';
  for (const deadline = Date.now() + 30_000; status !== 200 && Date.now() < deadline;) {
    status = await healthz(svc.url, '127.0.0.6');
    if (status !== 200) await sleep(50);
  }
  assert.equal(status, 200);
});

test('over TLS: a connection that never starts its handshake is closed after the headers timeout', async () => {
  const dir = await createTempDir('tls');
  cleanups.push(() => dir.remove());
  const [cert, key] = [dir.join('cert.pem'), dir.join('key.pem')];
  const made = await run('openssl', [
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
    ...['-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'],
  ]);
  assert.equal(made.code, 0, made.stderr);
  const tls = { cert: await readFile(cert), key: await readFile(key) };
  const svc = await startTestService({ connections: LIMITS, tls });
  cleanups.push(() => svc.stop());
  const idle = hold(svc, '127.0.0.8', 5);
  // Node's own handshake timeout is 120 s: this one is the headers timeout, 1.5 s.
  assert.ok(await until(() => idle.closed() === 5, 30_000), `${idle.closed()} closed`);
});

test('a keep-alive connection idle after its answer is closed after the keep-alive timeout', async () => {
  const svc = await service(LIMITS);
  const { port } = new URL(svc.url);
  const socket = connect({ port: Number(port), host: '127.0.0.1', localAddress: '127.0.0.9' });
  cleanups.push(async () => void socket.destroy());
  let answer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (answer += chunk));
  let ended = false;
  socket.on('close', () => (ended = true));
  socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  // Node's default was 65 s here; the test's keep-alive timeout is 1 s.
  assert.ok(await until(() => ended, 30_000), 'still open after 30 s');
  assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(answer, /\r\nKeep-Alive: timeout=1\r\n/i);
});
