// Every reflection path of SPEC §5 and every refusal, on a real service's reflection listener:
// exact JSON (pretty-printed), exact statuses and error bodies.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startReflectionHarness, type ReflectionHarness } from './harness.js';

let h: ReflectionHarness;
let emoji: string;
let url: string;

const PATHS = [
  { path: '/email', description: 'owner email address' },
  { path: '/integrations', description: 'integrations available to this VM' },
  { path: '/tags', description: 'tags set on this VM' },
  { path: '/comment', description: 'comment set on this VM' },
  {
    path: '/default_port',
    description:
      "default proxy port for this VM (the port shared at the VM's public HTTPS address)",
  },
];

before(async () => {
  // Its targets are on 127.0.0.1, a private address (SPEC §6; private-targets.test.ts).
  h = await startReflectionHarness({ allowPrivateTargets: true });
  const vm = (await h.exec("new --name vm1 --tag web --tag blue --comment 'hello there'")) as {
    emoji: string;
  };
  emoji = vm.emoji;
  url = h.reflectionUrl('vm1');
});
after(() => h.stop());

test('the index, with or without a trailing slash or a query, pretty-printed', async () => {
  const expected = `${JSON.stringify({ name: 'vm1', emoji, paths: PATHS }, null, 2)}\n`;
  for (const suffix of ['', '/', '?x=1', '//']) {
    const r = await h.http(`${url}${suffix}`);
    assert.equal(r.status, 200, suffix);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal(r.text, expected, suffix);
  }
});

test('each field answers its own document', async () => {
  const cases: [path: string, body: unknown][] = [
    ['/email', { email: 'owner@example.com' }],
    ['/tags', { tags: ['blue', 'web'] }],
    ['/comment', { comment: 'hello there' }],
    ['/default_port', { default_port: 8000 }],
    [
      '/integrations',
      {
        integrations: [
          { name: 'reflection', type: 'reflection', comment: '', help: `curl ${url}/` },
        ],
      },
    ],
    ['/tags/', { tags: ['blue', 'web'] }],
    ['/email?format=json', { email: 'owner@example.com' }],
  ];
  for (const [path, body] of cases) {
    const r = await h.http(`${url}${path}`);
    assert.equal(r.status, 200, path);
    assert.equal(r.text, `${JSON.stringify(body, null, 2)}\n`, path);
  }
});

test('/integrations lists every attached integration with its help line', async () => {
  await h.exec('integrations add llm --name openai --target http://127.0.0.1:9 --attach vm:vm1');
  await h.exec(
    "integrations add github --name gh --target https://github.com --comment 'org repos' --attach tag:web",
  );
  await h.exec(
    'integrations add http-proxy --name api --target http://127.0.0.1:9/v2 --attach auto:all',
  );
  await h.exec(
    'integrations add http-proxy --name elsewhere --target http://127.0.0.1:9 --attach tag:other',
  );
  assert.deepEqual(await h.reflect('vm1', '/integrations'), {
    integrations: [
      { name: 'api', type: 'http-proxy', comment: '', help: `curl ${url}/i/api/` },
      {
        name: 'gh',
        type: 'github',
        comment: 'org repos',
        help: `git clone ${url}/i/gh/<org>/<repo>.git`,
      },
      { name: 'openai', type: 'llm', comment: '', help: `curl ${url}/i/openai/v1/models` },
      { name: 'reflection', type: 'reflection', comment: '', help: `curl ${url}/` },
    ],
  });
  for (const name of ['openai', 'gh', 'api', 'elsewhere'])
    await h.exec(`integrations remove ${name}`);
});

test('404: unknown paths under a known secret, unknown secrets, anything outside /vm/', async () => {
  const base = h.svc.service.endpoints.reflection;
  const cases: [target: string, message: string][] = [
    [`${url}/nope`, 'unknown reflection path "/nope"'],
    [`${url}/email/extra`, 'unknown reflection path "/email/extra"'],
    [`${url}/%65mail`, 'unknown reflection path "/%65mail"'],
    [`${url}/i`, 'unknown reflection path "/i"'],
    [`${url}x/`, 'not found'],
    [`${base}/vm/not-a-secret/email`, 'not found'],
    [`${base}/vm/`, 'not found'],
    [`${base}/`, 'not found'],
    [`${base}/exec`, 'not found'],
  ];
  for (const [target, message] of cases) {
    const r = await h.http(target);
    assert.equal(r.status, 404, target);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(r.text), { error: message }, target);
  }
});

test('405 with Allow: GET for any other method on a document (HEAD included)', async () => {
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
    for (const path of ['/', '/email', '/nope']) {
      const r = await h.http(`${url}${path}`, { method });
      assert.equal(r.status, 405, `${method} ${path}`);
      assert.equal(r.headers.allow, 'GET');
      assert.deepEqual(JSON.parse(r.text), { error: 'method not allowed' });
    }
  }
  const head = await h.http(`${url}/`, { method: 'HEAD' });
  assert.equal(head.status, 405);
  assert.equal(head.headers.allow, 'GET');
  // An unknown secret stays a 404 whatever the method: a 405 would confirm nothing either.
  const unknown = await h.http(`${h.svc.service.endpoints.reflection}/vm/nobody/`, {
    method: 'POST',
  });
  assert.equal(unknown.status, 404);
});

test('the log names the VM and never its secret', () => {
  const secret = h.svc.service.store.getVmByName('vm1')!.reflectionSecret;
  const lines = h.svc.logs.filter((l) => l.includes('via=reflection'));
  assert.ok(lines.some((l) => l.includes('cmd="vm1 GET /email"') && l.includes('status=200')));
  assert.ok(lines.some((l) => l.includes('cmd="vm1 POST /"') && l.includes('status=405')));
  assert.ok(!h.svc.logs.some((l) => l.includes(secret)));
});
