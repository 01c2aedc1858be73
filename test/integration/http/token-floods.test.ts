// A flood of bad tokens (SPEC §7): failed verifications are rate limited per client address, so
// the flooding client is held back with 429s, while valid tokens, from another address or from
// the flooding one, keep passing.
// Two real clients on two loopback addresses (127.0.0.1 and 127.0.0.2, both on `lo`).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { HOLD_BACK_MS } from '../../../src/service/http/hold-back.js';
import { FAILURES_PER_ADDRESS } from '../../../src/service/http/failures-by-address.js';
import { probeHealthz } from '../../helpers/healthz-probe.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { startProxyFixture, type ProxyFixture } from '../proxy/fixture.js';

const FAR = 4_000_000_000;
/** The service's `--rate-limit` (per key): on, which turns the limit per address on too. */
const LIMIT = { capacity: 20, refillMs: 600_000 };
const FAILURES = FAILURES_PER_ADDRESS.capacity;

/** How many failures the address's bucket regained (one a second) since `started`, at most. */
const refilledSince = (started: number) =>
  Math.ceil(((Date.now() - started) * FAILURES) / FAILURES_PER_ADDRESS.refillMs);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request from the loopback address `from` (on a connection of `agent`'s, when given). */
function send(
  url: string,
  from: string,
  headers: Record<string, string>,
  body?: string,
  agent?: Agent,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: body === undefined ? 'GET' : 'POST',
      headers,
      localAddress: from,
      ...(agent === undefined ? {} : { agent }),
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** `t` with the last byte of its signature changed: well-formed, signed by a registered key, false. */
function tampered(t: string, n: number): string {
  const [prefix, payload, sig] = t.split('.') as [string, string, string];
  const blob = Buffer.from(sig, 'base64url');
  blob[blob.length - 1 - (n % 32)]! ^= 1 + (n >> 5);
  return `${prefix}.${payload}.${blob.toString('base64url')}`;
}

function assertRateLimited(r: Answer) {
  assert.equal(r.status, 429, r.body);
  assert.deepEqual(JSON.parse(r.body), { error: 'rate limit exceeded' });
  assert.match(String(r.headers['retry-after']), /^[1-9]\d*$/);
}

let svc: TestService;
let good: string;
let bad: string;
before(async () => {
  svc = await startTestService({ rateLimit: LIMIT });
  good = await svc.token(`{"exp":${FAR},"cmds":["whoami"]}`);
  bad = await svc.token(`{"exp":${FAR - 1},"cmds":["whoami"]}`);
});
after(() => svc.stop());

test('/exec: a flood of bad tokens from one address gets 429s; another address keeps passing', async () => {
  const started = Date.now();
  const flood: Promise<Answer>[] = [];
  const others: Promise<Answer>[] = [];
  for (let i = 0; i < FAILURES + 30; i++) {
    // Distinct bad tokens: none is answered from the failed-verification cache.
    const auth = { Authorization: `Bearer ${tampered(bad, i)}` };
    flood.push(send(`${svc.url}/exec`, '127.0.0.1', auth, 'whoami'));
    if (i % 9 === 0) {
      const own = { Authorization: `Bearer ${good}` };
      others.push(send(`${svc.url}/exec`, '127.0.0.2', own, 'whoami'));
    }
  }
  // Once its failures are spent, the flooding address's bad tokens are held back, yet a good
  // token from it still passes (asked while the flood's 429s are still held).
  const logged401 = () => svc.logs.filter((l) => / status=401 /.test(l)).length;
  while (logged401() < FAILURES) await sleep(5);
  const next = send(`${svc.url}/exec`, '127.0.0.1', { Authorization: `Bearer ${good}` }, 'whoami');
  const flooded = await Promise.all(flood);
  const refused = flooded.filter((r) => r.status === 401);
  assert.ok(refused.length >= FAILURES, `${refused.length} refused`);
  assert.ok(refused.length <= FAILURES + refilledSince(started), `${refused.length} refused`);
  for (const r of refused) assert.deepEqual(JSON.parse(r.body), { error: 'invalid token' });
  for (const r of flooded.filter((r) => r.status !== 401)) assertRateLimited(r);
  for (const r of await Promise.all(others)) {
    assert.equal(r.status, 200, r.body);
    assert.equal(JSON.parse(r.body).email, 'owner@example.com');
  }
  const after = await next;
  assert.equal(after.status, 200, after.body);
  assert.ok(svc.logs.some((l) => / status=429 /.test(l) && / key=- /.test(l)));
});

test('/exec: valid requests amid a bad-token flood from their own address all pass; the bad ones get 429', async () => {
  const from = '127.0.0.6';
  // A key of its own: the 12 requests must fit its bucket whatever the other tests spent.
  const key = await svc.addAccount('valid@example.com');
  const valid = await svc.token(`{"exp":${FAR},"cmds":["whoami"]}`, key);
  // Never seen before the address runs out of failures: each is verified at its turn.
  const fresh = await Promise.all(
    [1, 2, 3].map((n) => svc.token(`{"exp":${FAR - 10 - n},"cmds":["whoami"]}`, key)),
  );
  const started = Date.now();
  const logged401 = () => svc.logs.filter((l) => / status=401 /.test(l)).length;
  const before401 = logged401();
  const flood: Promise<Answer>[] = [];
  const goods: Promise<Answer>[] = [];
  const good = () =>
    goods.push(send(`${svc.url}/exec`, from, { Authorization: `Bearer ${valid}` }, 'whoami'));
  for (let i = 0; i < FAILURES + 40; i++) {
    const auth = { Authorization: `Bearer ${tampered(bad, 5000 + i)}` };
    flood.push(send(`${svc.url}/exec`, from, auth, 'whoami'));
    if (i % 16 === 0) good();
  }
  // Meanwhile another address is served at once: p99 under 1 s (wide: it takes milliseconds).
  const probe = probeHealthz(svc.url, '127.0.0.7', Promise.all(flood));
  // Half of them once the address has surely spent its failures, while the flood's 429s wait.
  while (logged401() - before401 < FAILURES) await sleep(5);
  while (goods.length < 12) good();
  const fresh200 = fresh.map((t) =>
    send(`${svc.url}/exec`, from, { Authorization: `Bearer ${t}` }, 'whoami'),
  );
  for (const r of await Promise.all(goods)) {
    assert.equal(r.status, 200, r.body);
    assert.equal(JSON.parse(r.body).email, 'valid@example.com');
  }
  for (const r of await Promise.all(fresh200)) assert.equal(r.status, 200, r.body);
  const flooded = await Promise.all(flood);
  const { statuses, p99Ms } = await probe;
  assert.deepEqual(new Set(statuses), new Set([200]));
  assert.ok(p99Ms < 1_000, `p99 ${p99Ms} ms`);
  const refused = flooded.filter((r) => r.status === 401);
  assert.ok(refused.length >= FAILURES, `${refused.length} refused`);
  assert.ok(refused.length <= FAILURES + refilledSince(started), `${refused.length} refused`);
  const limited = flooded.filter((r) => r.status !== 401);
  assert.ok(limited.length >= 40 - refilledSince(started), `${limited.length} got 429`);
  for (const r of limited) assertRateLimited(r);
});

test('out of failures, each keep-alive connection gets one answer a pause, not as many as it sends', async () => {
  const CONNECTIONS = 4;
  const FLOOD_MS = 2_500;
  const from = '127.0.0.4';
  // Spend the address's burst first.
  for (let i = 0; i < FAILURES; i++) {
    const r = await send(
      `${svc.url}/exec`,
      from,
      { Authorization: `Bearer ${tampered(bad, i)}` },
      'whoami',
    );
    assert.equal(r.status, 401, r.body);
  }
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const started = Date.now();
  let answers = 0;
  const connection = async (c: number) => {
    for (let i = 0; Date.now() - started < FLOOD_MS; i++) {
      const auth = { Authorization: `Bearer ${tampered(bad, 1000 + c * 1000 + i)}` };
      const r = await send(`${svc.url}/exec`, from, auth, 'whoami', agent);
      if (r.status !== 401) assertRateLimited(r);
      answers++;
    }
  };
  try {
    await Promise.all(Array.from({ length: CONNECTIONS }, (_, c) => connection(c)));
  } finally {
    agent.destroy();
  }
  // Each connection waits HOLD_BACK_MS per 429: a few answers in all, however fast it sends.
  const elapsed = Date.now() - started;
  const most = CONNECTIONS * Math.ceil(elapsed / HOLD_BACK_MS) + refilledSince(started);
  assert.ok(answers <= most, `${answers} answers in ${elapsed} ms (at most ${most})`);
  // Meanwhile another address is served at once.
  const other = await send(
    `${svc.url}/exec`,
    '127.0.0.5',
    { Authorization: `Bearer ${good}` },
    'whoami',
  );
  assert.equal(other.status, 200, other.body);
});

test('VM proxy: failed verifications count against the same address buckets', async () => {
  const f: ProxyFixture = await startProxyFixture({ rateLimit: LIMIT });
  try {
    await f.createVm('vm1');
    const token = await f.vmToken('vm1');
    const started = Date.now();
    const statuses: number[] = [];
    // Past the burst each 429 comes after the hold-back pause: a few are enough.
    for (let i = 0; i < FAILURES + 4; i++) {
      const headers = {
        Host: `vm1.localhost:${f.port}`,
        'X-Exectl-Authorization': `Bearer ${tampered(token, i)}`,
      };
      statuses.push((await send(`${f.svc.url}/`, '127.0.0.3', headers)).status);
    }
    // The first FAILURES are verified; the rest are refused but for what the bucket regained.
    assert.deepEqual(statuses.slice(0, FAILURES), Array(FAILURES).fill(401));
    const passed = statuses.slice(FAILURES).filter((s) => s === 401).length;
    assert.ok(passed <= refilledSince(started), statuses.join(' '));
    assert.deepEqual(
      statuses.slice(FAILURES).filter((s) => s !== 401),
      Array(4 - passed).fill(429),
    );
  } finally {
    await f.stop();
  }
});
