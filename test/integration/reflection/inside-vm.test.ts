// From inside real bubblewrap VMs: a program reads EXECTL_REFLECTION_URL, discovers its VM and
// reaches an integration whose secret header is added outside the VM and never enters it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  startEchoUpstream,
  startReflectionHarness,
  type EchoUpstream,
  type HttpAnswer,
  type ReflectionHarness,
} from './harness.js';

const TOKEN = 'ghp_inside0vm0never0sees0this';

let h: ReflectionHarness;
let upstream: EchoUpstream;
let emoji: string;

before(async () => {
  // Its targets are on 127.0.0.1, a private address (SPEC §6; private-targets.test.ts).
  h = await startReflectionHarness({ runtime: 'bwrap', allowPrivateTargets: true });
  assert.equal(h.svc.service.runtime.kind, 'bwrap');
  upstream = await startEchoUpstream();
  emoji = ((await h.exec('new --name vm1 --tag box')) as { emoji: string }).emoji;
  await h.exec('new --name vm2');
  await h.exec(
    `integrations add github --name gh --target ${upstream.url}/git ` +
      `--header 'Authorization: token ${TOKEN}' --comment 'org repos' --attach vm:vm1`,
  );
});
after(async () => {
  await h.stop();
  await upstream.close();
});

/** `ssh <vm> <command>` through POST /exec: the VM's raw output and its exit code. */
async function ssh(vm: string, command: string): Promise<HttpAnswer & { exit: string }> {
  const r = await h.execRaw(`ssh ${vm} '${command}'`);
  return { ...r, exit: String(r.headers['x-exec-exit']) };
}

test('curl "$EXECTL_REFLECTION_URL/" inside the VM answers its own index', async () => {
  const r = await ssh('vm1', 'curl -s "$EXECTL_REFLECTION_URL/"');
  assert.equal(r.exit, '0', r.text);
  const index = JSON.parse(r.text) as { name: string; emoji: string; paths: { path: string }[] };
  assert.equal(index.name, 'vm1');
  assert.equal(index.emoji, emoji);
  assert.deepEqual(
    index.paths.map((p) => p.path),
    ['/email', '/integrations', '/tags', '/comment', '/default_port'],
  );
  const tags = await ssh('vm1', 'curl -s "$EXECTL_REFLECTION_URL/tags"');
  assert.equal(tags.text, '{\n  "tags": [\n    "box"\n  ]\n}\n');
  const vm2 = await ssh('vm2', 'curl -s "$EXECTL_REFLECTION_URL/"');
  assert.equal((JSON.parse(vm2.text) as { name: string }).name, 'vm2');
});

test('the integration is reached from inside with the secret added outside', async () => {
  const list = await ssh('vm1', 'curl -s "$EXECTL_REFLECTION_URL/integrations"');
  const url = `${h.reflectionUrl('vm1')}/i/gh`;
  assert.deepEqual(JSON.parse(list.text), {
    integrations: [
      {
        name: 'gh',
        type: 'github',
        comment: 'org repos',
        help: `git clone ${url}/<org>/<repo>.git`,
      },
      {
        name: 'reflection',
        type: 'reflection',
        comment: '',
        help: `curl ${h.reflectionUrl('vm1')}/`,
      },
    ],
  });

  const r = await ssh(
    'vm1',
    'curl -s -o /dev/null -w "%{http_code}" --data-binary hello "$EXECTL_REFLECTION_URL/i/gh/org/repo.git/git-upload-pack"',
  );
  assert.equal(r.text, '201');
  const seen = upstream.requests.at(-1)!;
  assert.equal(seen.url, '/git/org/repo.git/git-upload-pack');
  assert.equal(seen.method, 'POST');
  assert.equal(seen.body, 'hello');
  assert.equal(seen.headers.authorization, `token ${TOKEN}`);
});

test('the secret is nowhere inside: not in the environment, the disk, or reflection', async () => {
  const env = await ssh('vm1', 'env');
  assert.match(env.text, new RegExp(`^EXECTL_REFLECTION_URL=${h.reflectionUrl('vm1')}$`, 'm'));
  const all = await ssh(
    'vm1',
    'env; for p in / /email /integrations /tags /comment /default_port; do curl -s "$EXECTL_REFLECTION_URL$p"; done; grep -rs ghp_ /root /etc; true',
  );
  assert.equal(all.exit, '0');
  assert.ok(all.text.includes('"integrations"'), all.text);
  assert.ok(!all.text.includes(TOKEN));
});

test('a VM the integration is not attached to gets 403 from inside', async () => {
  const before = upstream.requests.length;
  const r = await ssh(
    'vm2',
    'curl -s -w " %{http_code}" "$EXECTL_REFLECTION_URL/i/gh/org/repo.git"',
  );
  assert.equal(r.text, '{"error":"integration \\"gh\\" is not attached to this vm"}\n 403');
  assert.equal(upstream.requests.length, before);
});
