// One-shot exec over the real OpenSSH client: the command line goes through the same
// dispatcher as /exec; text or --json; errors on stderr; the SSH exit status says how it went.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRegistry } from '../../../src/service/commands/index.js';
import { parsePublicKey } from '../../../src/token/keys.js';
import { run } from '../../helpers/keys.js';
import { startSshHarness, type SshHarness } from './harness.js';

let h: SshHarness;
before(async () => {
  h = await startSshHarness({ registry: buildRegistry(), http: true });
});
after(() => h?.close());

test('exec: whoami --json answers the owner account as JSON, current key marked', async () => {
  const r = await h.ssh('whoami --json');
  assert.equal(r.stderr, '');
  assert.equal(r.code, 0);
  const key = h.store.listKeys(h.owner.account.id)[0]!;
  assert.equal(
    r.stdout,
    JSON.stringify({
      email: 'owner@example.com',
      user_id: h.owner.account.userId,
      region: 'local',
      region_display: 'Local',
      ssh_keys: [
        { name: 'laptop', fingerprint: key.fingerprint, public_key: key.publicKey, current: true },
      ],
    }) + '\n',
  );
});

test('exec: without --json the same data is readable text', async () => {
  const r = await h.ssh('whoami');
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^email: +owner@example\.com$/m);
  assert.match(r.stdout, new RegExp(`^user id: +${h.owner.account.userId}$`, 'm'));
  assert.ok(!r.stdout.trimStart().startsWith('{'), r.stdout);
});

test('exec: the words ssh sends are lexed like an /exec body (quotes, no expansion)', async () => {
  const r = await h.ssh(`help 'ssh-key' "list" --json`);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).name, 'ssh-key list');
});

test('exec: --help answers the command help as JSON with --json', async () => {
  const r = await h.ssh('whoami --help --json');
  assert.equal(r.code, 0, r.stderr);
  const help = JSON.parse(r.stdout);
  assert.equal(help.name, 'whoami');
  assert.equal(help.usage, 'whoami');
});

// The exit status of each failure is the catalogue's exit code (SPEC §8), the message is the
// /exec message, on stderr, and stdout stays empty.
const FAILURES: [line: string, exit: number, stderr: string][] = [
  ['frobnicate', 5, 'error: unknown command: frobnicate\n'],
  ['ssh-key frob', 5, 'error: unknown command: ssh-key frob\n'],
  // The same suggestion as /exec's 404 (issue 28).
  ['whoam', 5, 'error: unknown command: whoam — did you mean "whoami"?\n'],
  [`whoami 'unterminated`, 2, 'error: invalid command syntax: unterminated single quote\n'],
  ['rename no-such-vm other', 1, 'error: vm "no-such-vm" not found\n'],
  ['whoami extra', 1, 'error: unexpected argument "extra"\n'],
];

for (const [line, exit, stderr] of FAILURES) {
  test(`exec: ${JSON.stringify(line)} fails with status ${exit}`, async () => {
    const r = await h.ssh(line);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, stderr);
    assert.equal(r.code, exit);
  });
}

test('exec: each command is one log line with the key, the command path and the /exec status', async () => {
  const before = h.logs.length;
  await h.ssh('whoami --json');
  await h.ssh('frobnicate');
  const lines = h.logs.slice(before);
  const fingerprint = h.store.listKeys(h.owner.account.id)[0]!.fingerprint;
  assert.equal(lines.length, 2, lines.join('\n'));
  assert.match(
    lines[0]!,
    new RegExp(`via=ssh key=${escape(fingerprint)} cmd="whoami" status=200 `),
  );
  assert.match(lines[1]!, new RegExp(`via=ssh key=${escape(fingerprint)} cmd="-" status=404 `));
});

test('exec: ssh-key generate-api-key --json returns a svc1 token bound to a new registered key', async () => {
  const r = await h.ssh('ssh-key generate-api-key --label x --exp 30d --json');
  assert.equal(r.code, 0, r.stderr);
  const answer = JSON.parse(r.stdout);
  assert.match(answer.token, /^svc1\.[A-Z2-7]{26}$/);
  assert.equal(answer.label, 'x');
  assert.equal(answer.namespace, 'v0@localhost');
  const key = h.store.findKeyByFingerprint(answer.fingerprint);
  assert.equal(key?.name, 'x');
  assert.equal(key?.accountId, h.owner.account.id);
  assert.ok(!h.logs.some((l) => l.includes(answer.token.slice(5))), 'token in the log');

  // The token works on the real /exec endpoint, as the account, signed by the new key.
  const curl = await run('curl', [
    '-sS',
    '-w',
    '\n%{http_code}',
    '-H',
    `Authorization: Bearer ${answer.token}`,
    '--data-binary',
    'whoami',
    `${h.http!.url}/exec`,
  ]);
  const [body, status] = curl.stdout.split(/\n(?=\d+$)/);
  assert.equal(status, '200', curl.stdout);
  const whoami = JSON.parse(body!);
  assert.equal(whoami.email, 'owner@example.com');
  const current = whoami.ssh_keys.filter((k: { current: boolean }) => k.current);
  assert.deepEqual(
    current.map((k: { name: string; fingerprint: string }) => [k.name, k.fingerprint]),
    [['x', answer.fingerprint]],
  );
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

test('exec: a tag-scoped key (added by a scoped key, or imported) is scoped over SSH too', async () => {
  const key = await h.newKey('scoped');
  const parsed = parsePublicKey(key.publicKeyLine);
  h.store.addKey({
    accountId: h.owner.account.id,
    fingerprint: parsed.fingerprint,
    name: 'scoped',
    publicKey: key.publicKeyLine,
    keyType: parsed.type,
    tag: 'ci',
  });
  const vm = (name: string, tags: string[]) =>
    h.store.createVm({ accountId: h.owner.account.id, name, emoji: '🧪', status: 'running', tags });
  vm('ssh-ci', ['ci']);
  vm('ssh-other', ['prod']);
  const ls = await h.ssh('ls --json', { key });
  assert.equal(ls.code, 0, ls.stderr);
  assert.deepEqual(
    (JSON.parse(ls.stdout) as { vms: { vm_name: string }[] }).vms.map((v) => v.vm_name),
    ['ssh-ci'],
  );
  const comment = await h.ssh('comment ssh-other hi', { key });
  assert.deepEqual(
    [comment.code, comment.stdout, comment.stderr],
    [1, '', 'error: vm "ssh-other" not found\n'],
  );
  const tag = await h.ssh('tag ssh-ci x', { key });
  assert.deepEqual(
    [tag.code, tag.stderr],
    [
      4,
      'error: this key is limited to vms tagged "ci" and cannot change tags: use a key without --tag\n',
    ],
  );
  // The owner's unscoped key sees both.
  const all = await h.ssh('ls --json');
  assert.equal((JSON.parse(all.stdout) as { vms: unknown[] }).vms.length, 2);
});
