// The integration proxy (SPEC §5) between a VM's address `{reflection_url}/i/<name>` and a
// real local upstream: what arrives there (the configured secret header included), what comes
// back, streaming both ways, and every refusal.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { run } from '../../helpers/keys.js';
import {
  startEchoUpstream,
  startReflectionHarness,
  type EchoUpstream,
  type ReflectionHarness,
} from './harness.js';

const SECRET = 'Bearer sk-proxy-secret-42';
const API_KEY = 'key-0f9e8d';

let h: ReflectionHarness;
let upstream: EchoUpstream;
let url: string; // vm1's address of the `echo` integration

// Hooks of the streaming tests: the upstream waits on them mid-request. A proxy that buffered
// would wait forever for the end of a message that cannot end yet: the test times out.
let releaseSecondChunk: () => void = () => {};
let uploadFirstPartArrived: () => void = () => {};

function takeOver(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.url === '/base/stream') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('first\n');
    releaseSecondChunk = () => res.end('second\n');
    return true;
  }
  if (req.url === '/base/upload') {
    let received = '';
    req.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      if (received.includes('part1')) uploadFirstPartArrived();
    });
    req.on('end', () => res.end(`got ${received}`));
    return true;
  }
  return false;
}

before(async () => {
  // Its targets are on 127.0.0.1, a private address (SPEC §6; private-targets.test.ts).
  h = await startReflectionHarness({ allowPrivateTargets: true });
  upstream = await startEchoUpstream(takeOver);
  await h.exec('new --name vm1');
  await h.exec('new --name vm2');
  await h.exec(
    `integrations add http-proxy --name echo --target ${upstream.url}/base ` +
      `--header 'Authorization: ${SECRET}' --header 'X-Api-Key: ${API_KEY}' --attach vm:vm1`,
  );
  url = `${h.reflectionUrl('vm1')}/i/echo`;
});
after(async () => {
  await h.stop();
  await upstream.close();
});

const lastSeen = () => upstream.requests.at(-1)!;

test('a GET reaches <target>/<rest> with the query and the configured headers added', async () => {
  const r = await h.http(`${url}/hello/world?x=1&y=%20z`, { headers: { accept: 'text/plain' } });
  assert.equal(r.status, 201);
  assert.equal(r.headers['x-upstream'], 'echo');
  assert.equal(r.headers['content-type'], 'application/json');
  const seen = lastSeen();
  assert.equal(seen.method, 'GET');
  assert.equal(seen.url, '/base/hello/world?x=1&y=%20z');
  assert.equal(seen.headers.authorization, SECRET);
  assert.equal(seen.headers['x-api-key'], API_KEY);
  assert.equal(seen.headers.accept, 'text/plain');
  assert.equal(seen.headers.host, new URL(upstream.url).host);

  await h.http(url);
  assert.equal(lastSeen().url, '/base');
  await h.http(`${url}/`);
  assert.equal(lastSeen().url, '/base/');
});

test("any method and body; the VM's own Authorization is replaced, proxy headers dropped", async () => {
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    const r = await h.http(`${url}/items/7`, {
      method,
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer chosen-by-the-vm',
        'proxy-authorization': 'Basic eDp5',
        'x-from-vm': 'yes',
      },
      body: `{"method":"${method}"}`,
    });
    assert.equal(r.status, 201, method);
    const seen = lastSeen();
    assert.equal(seen.method, method);
    assert.equal(seen.body, `{"method":"${method}"}`);
    assert.equal(seen.headers['content-type'], 'application/json');
    assert.equal(seen.headers.authorization, SECRET);
    assert.equal(seen.headers['proxy-authorization'], undefined);
    assert.equal(seen.headers['x-from-vm'], 'yes');
  }
});

test('Expect: 100-continue (curl) gets its continue; the target never sees the Expect', async () => {
  const file = h.svc.dir.join('body.bin');
  await writeFile(file, 'x'.repeat(300_000));
  const r = await run('curl', [
    '-sS',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code}',
    '-H',
    'Expect: 100-continue',
    '--data-binary',
    `@${file}`,
    `${url}/upload-big`,
  ]);
  assert.equal(r.stdout, '201', r.stderr);
  assert.equal(lastSeen().body.length, 300_000);
  assert.equal(lastSeen().headers.expect, undefined);
});

test(
  'the answer streams: the first chunk arrives while the target is still writing',
  { timeout: 15_000 },
  async () => {
    const res = await request(`${url}/stream`);
    const chunks = res.body[Symbol.asyncIterator]();
    const first = await chunks.next();
    assert.equal(Buffer.from(first.value as Buffer).toString(), 'first\n');
    releaseSecondChunk();
    let rest = '';
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
      rest += Buffer.from(next.value as Buffer).toString();
    }
    assert.equal(rest, 'second\n');
  },
);

test(
  'the request streams: the target reads the first part before the VM sends the rest',
  { timeout: 15_000 },
  async () => {
    const arrived = new Promise<void>((resolve) => (uploadFirstPartArrived = resolve));
    async function* body() {
      yield Buffer.from('part1,');
      await arrived;
      yield Buffer.from('part2');
    }
    const res = await request(`${url}/upload`, { method: 'POST', body: Readable.from(body()) });
    assert.equal(res.statusCode, 200);
    assert.equal(await res.body.text(), 'got part1,part2');
  },
);

test('refusals: unattached 403, unknown 404, reflection 404, path escape 400, dead target 502', async () => {
  const before = upstream.requests.length;
  const base = h.svc.service.endpoints.reflection;
  const closed = await startEchoUpstream();
  await closed.close();
  await h.exec(`integrations add llm --name dead --target ${closed.url} --attach vm:vm1`);
  const cases: [target: string, status: number, message: string][] = [
    [
      `${h.reflectionUrl('vm2')}/i/echo/hello`,
      403,
      'integration "echo" is not attached to this vm',
    ],
    [`${h.reflectionUrl('vm1')}/i/nope/x`, 404, 'integration "nope" not found'],
    [
      `${h.reflectionUrl('vm1')}/i/reflection/x`,
      404,
      'integration "reflection" does not forward requests',
    ],
    [`${base}/vm/unknown-secret/i/echo/hello`, 404, 'not found'],
    [`${h.reflectionUrl('vm1')}/i/dead/v1/models`, 502, 'integration "dead" is unreachable'],
  ];
  for (const [target, status, message] of cases) {
    const r = await h.http(target, { method: 'POST', body: 'x' });
    assert.equal(r.status, status, target);
    assert.deepEqual(JSON.parse(r.text), { error: message }, target);
  }
  // Clients resolve dot segments themselves; curl --path-as-is sends them as a VM's program could.
  for (const path of ['/../admin', '/%2e%2e/admin', '/x/../../admin']) {
    const r = await run('curl', ['-sS', '--path-as-is', '-w', ' %{http_code}', `${url}${path}`]);
    assert.equal(r.stdout, `{"error":"path leaves the integration's target"}\n 400`, path);
  }
  assert.equal(upstream.requests.length, before, 'nothing reached the target');
  assert.ok(
    h.svc.logs.some((l) => l.includes('cmd="vm1 POST /i/dead"') && l.includes('status=502')),
  );
  await h.exec('integrations remove dead');
});

test('attach by tag opens it to tagged VMs; detach closes it again', async () => {
  const vm2 = `${h.reflectionUrl('vm2')}/i/echo/`;
  await h.exec('integrations attach echo tag:workers');
  assert.equal((await h.http(vm2)).status, 403);
  await h.exec('tag vm2 workers');
  assert.equal((await h.http(vm2)).status, 201);
  await h.exec('integrations detach echo tag:workers');
  assert.equal((await h.http(vm2)).status, 403);
});

test('the secret header never shows: not in reflection, commands, or logs', async () => {
  const answers = [
    (await h.http(`${h.reflectionUrl('vm1')}/`)).text,
    (await h.http(`${h.reflectionUrl('vm1')}/integrations`)).text,
    (await h.execRaw('integrations list')).text,
    (await h.execRaw('integrations attach echo auto:all')).text,
    ...h.svc.logs,
  ];
  for (const text of answers) {
    assert.ok(!text.includes('sk-proxy-secret'), text);
    assert.ok(!text.includes(API_KEY), text);
  }
  // The real service's shape: an array, header names (never values) under `config`.
  const listed = JSON.parse((await h.execRaw('integrations list')).text) as {
    name: string;
    config: { header_names: string[] };
  }[];
  assert.deepEqual(listed.find((i) => i.name === 'echo')?.config.header_names, [
    'Authorization',
    'X-Api-Key',
  ]);
});

test('a stored header value that is not visible ASCII answers 502 naming the header, never 500', async () => {
  const account = h.svc.service.store.findAccountByEmail(h.svc.owner.email)!;
  const before = upstream.requests.length;
  // Written straight to the store, as a data folder from before the rule of `--header` holds it.
  h.svc.service.store.createIntegration({
    accountId: account.id,
    name: 'old-header',
    type: 'http-proxy',
    target: upstream.url,
    headers: ['X-Key: ключ-secret'],
    attachments: ['vm:vm1'],
  });
  const r = await h.http(`${h.reflectionUrl('vm1')}/i/old-header/x`);
  assert.equal(r.status, 502, r.text);
  assert.deepEqual(JSON.parse(r.text), {
    error:
      'integration "old-header": header "X-Key" is not visible ASCII; remove the integration and add it again',
  });
  assert.equal(upstream.requests.length, before, 'nothing reached the target');
  await h.exec('integrations remove old-header');
});
