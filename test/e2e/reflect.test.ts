// `exectl reflect` with the built CLI against a real service's reflection listener: run inside
// a VM (process runtime) and with the VM's EXECTL_REFLECTION_URL; every failure's exit code.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { homeWithOwnerKey, startTestService, type TestService } from '../helpers/service.js';
import { REPO, assertBuilt, assertOneLineError, exectl, type CliResult } from './harness.js';

let svc: TestService;
let home: string;
/** The reflection URL the service gave VM `web` (it holds the VM's secret). */
let webUrl: string;

function cli(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return exectl(['--url', svc.url, ...args], { home, env });
}

async function ok(args: readonly string[]): Promise<string> {
  const result = await cli(args);
  assert.deepEqual([result.code, result.stderr], [0, ''], args.join(' '));
  return result.stdout;
}

before(async () => {
  assertBuilt();
  svc = await startTestService();
  home = await homeWithOwnerKey(svc);
  await ok(['run', 'new', '--name', 'web', '--tag', 'blue']);
  webUrl = (await ok(['ssh', 'web', '--', 'printf %s "$EXECTL_REFLECTION_URL"'])).trim();
  assert.match(webUrl, /^http:\/\/127\.0\.0\.1:\d+\/vm\/[\w-]+$/);
});
after(() => svc.stop());

const reflect = (args: readonly string[], url = webUrl) =>
  cli(['reflect', ...args], { EXECTL_REFLECTION_URL: url });

test('inside the VM: exectl reflect reads its own metadata', async () => {
  const stdout = await ok([
    'ssh',
    'web',
    '--',
    process.execPath,
    `${REPO}/bin/exectl.cjs`,
    'reflect',
    '/email',
  ]);
  assert.equal(stdout, '{\n  "email": "owner@example.com"\n}\n');
});

test('the index, and each field with or without its leading slash', async () => {
  const index = await reflect([]);
  assert.equal(index.code, 0, index.stderr);
  const doc = JSON.parse(index.stdout) as { name: string; paths: { path: string }[] };
  assert.equal(index.stdout, `${JSON.stringify(doc, null, 2)}\n`, 'as the server sent it');
  assert.equal(doc.name, 'web');
  assert.deepEqual(
    doc.paths.map((p) => p.path),
    ['/email', '/integrations', '/tags', '/comment', '/default_port'],
  );
  for (const [path, body] of [
    ['/tags', { tags: ['blue'] }],
    ['tags', { tags: ['blue'] }],
    ['/default_port', { default_port: 8000 }],
  ] as const) {
    const result = await reflect([path]);
    assert.deepEqual([result.code, JSON.parse(result.stdout), result.stderr], [0, body, ''], path);
  }
});

test('not inside a VM → 2', async () => {
  assertOneLineError(
    await cli(['reflect']),
    2,
    'not inside an exectl VM — EXECTL_REFLECTION_URL is not set',
  );
  assertOneLineError(
    await reflect([], 'ftp://x/'),
    2,
    'EXECTL_REFLECTION_URL is not an http:// URL — it is set by exectl inside a VM; do not change it',
  );
});

test('unknown path or secret → 5', async () => {
  assertOneLineError(
    await reflect(['/nope']),
    5,
    'unknown reflection path "/nope" — run `exectl reflect` to list the paths',
  );
  const wrongSecret = webUrl.replace(/\/vm\/.*$/, '/vm/not-a-secret');
  assertOneLineError(
    await reflect(['/email'], wrongSecret),
    5,
    'not found — run `exectl reflect` to list the paths',
  );
});

test('a field the reflection integration does not open → 4', async () => {
  await ok(['run', 'integrations', 'detach', 'reflection', 'auto:all']);
  assertOneLineError(
    await reflect(['/email']),
    4,
    "the reflection integration is not attached to this vm — the VM's reflection integration does not offer /email",
  );
  await ok([
    'run',
    'integrations',
    'add',
    'reflection',
    '--name',
    'basic',
    '--fields',
    'email',
    '--attach',
    'vm:web',
  ]);
  assert.equal((await reflect(['/email'])).code, 0);
  assertOneLineError(
    await reflect(['/tags']),
    4,
    "reflection path /tags is not enabled for this vm — the VM's reflection integration does not offer /tags",
  );
});

test('unreachable → 8, and the secret is never printed', async () => {
  assertOneLineError(
    await reflect(['/email'], 'http://127.0.0.1:9/vm/s3cret'),
    8,
    'cannot reach the reflection interface at http://127.0.0.1:9: connection refused — the exectl server that runs this VM may have stopped',
  );
});
