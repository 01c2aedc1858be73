import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { emojiFor } from '../../../../src/service/rules/emoji.js';
import { openCommandFixture, T0, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;
let bob: User;

before(async () => {
  fx = await openCommandFixture();
  ada = fx.addUser('ada@example.com');
  bob = fx.addUser('bob@example.com');
});
after(() => fx.cleanup());

test('whoami answers the account and marks the key of this request as current', async () => {
  fx.store.addKey({
    accountId: ada.account.id,
    fingerprint: 'SHA256:second',
    name: 'laptop',
    publicKey: 'ssh-ed25519 AAAA laptop',
    keyType: 'ssh-ed25519',
  });
  assert.deepEqual(await fx.run(ada, 'whoami'), {
    email: 'ada@example.com',
    user_id: ada.account.userId,
    region: 'local',
    region_display: 'Local',
    ssh_keys: [
      {
        name: 'default',
        fingerprint: ada.signer.publicKey.fingerprint,
        public_key: ada.signer.publicKey.toOpenSsh(),
        current: true,
      },
      {
        name: 'laptop',
        fingerprint: 'SHA256:second',
        public_key: 'ssh-ed25519 AAAA laptop',
        current: false,
      },
    ],
  });
  const asLaptop = { ...ada, principal: { ...ada.principal, keyFingerprint: 'SHA256:second' } };
  const data = (await fx.run(asLaptop, 'whoami')) as { ssh_keys: { current: boolean }[] };
  assert.deepEqual(
    data.ssh_keys.map((k) => k.current),
    [false, true],
  );
});

test('whoami as text: the account then a table of keys with a star on the current one', async () => {
  const text = await fx.text(bob, 'whoami');
  assert.equal(
    text,
    'email:   bob@example.com\n' +
      `user id: ${bob.account.userId}\n` +
      'region:  local (Local)\n' +
      '\n' +
      `   NAME     FINGERPRINT\n` +
      `*  default  ${bob.signer.publicKey.fingerprint}\n`,
  );
});

test('ls lists own and shared VMs with every field, sorted by name', async () => {
  fx.addVm(ada, 'web', { tags: ['prod', 'eu'], comment: 'the site', defaultPort: 3000 });
  fx.addVm(ada, 'db');
  const shared = fx.addVm(bob, 'bob-api', { tags: ['prod'] });
  fx.addVm(bob, 'bob-private');
  fx.store.addShare(shared.id, 'ADA@example.com');

  const entry = (name: string, extra: Record<string, unknown> = {}) => ({
    vm_name: name,
    emoji: emojiFor(name),
    status: 'running',
    tags: [],
    comment: '',
    default_port: 8000,
    https_url: `http://${name}.localhost:7070`,
    ssh_dest: `vm+${name}@localhost`,
    ssh_host: 'localhost',
    ssh_port: 7022,
    ssh_user: `vm+${name}`,
    region: 'local',
    region_display: 'Local',
    image: null,
    created_at: T0,
    ...extra,
  });
  assert.deepEqual(await fx.run(ada, 'ls'), {
    vms: [
      entry('bob-api', { tags: ['prod'] }),
      entry('db'),
      entry('web', { tags: ['eu', 'prod'], comment: 'the site', default_port: 3000 }),
    ],
  });
  // -l adds each VM's limits (SPEC §3), the defaults here.
  const limits = { cpus: 2, memory_bytes: 2 * 2 ** 30, disk_bytes: 10 * 2 ** 30 };
  const short = (await fx.run(ada, 'ls')) as { vms: Record<string, unknown>[] };
  assert.deepEqual(await fx.run(ada, 'ls -l'), {
    vms: short.vms.map((vm) => ({ ...vm, ...limits })),
  });
  assert.deepEqual(await fx.run(bob, 'ls'), {
    vms: [entry('bob-api', { tags: ['prod'] }), entry('bob-private')],
  });
});

test('ls pattern is a glob over names and tags', async () => {
  const names = async (line: string) =>
    ((await fx.run(ada, line)) as { vms: { vm_name: string }[] }).vms.map((v) => v.vm_name);
  assert.deepEqual(await names('ls prod'), ['bob-api', 'web']);
  assert.deepEqual(await names("ls 'w*'"), ['web']);
  assert.deepEqual(await names("ls '?b'"), ['db']);
  assert.deepEqual(await names("ls 'e[uv]'"), ['web']);
  assert.deepEqual(await names('ls bob-private'), []);
  assert.deepEqual(await names('ls nothing'), []);
});

test('ls as text: a short table, and -l adds comment, port, ssh command and creation time', async () => {
  const carol = fx.addUser('carol@example.com');
  assert.equal(await fx.text(carol, 'ls'), 'no vms\n');
  fx.addVm(carol, 'cv', { tags: ['a', 'b'], comment: 'résumé' });
  const e = emojiFor('cv');
  assert.equal(
    await fx.text(carol, 'ls'),
    'NAME   STATUS   TAGS  URL\n' + `${e} cv  running  a,b   http://cv.localhost:7070\n`,
  );
  assert.equal(
    await fx.text(carol, 'ls -l'),
    'NAME   STATUS   TAGS  URL                       COMMENT  PORT  SSH                          REGION  CREATED\n' +
      `${e} cv  running  a,b   http://cv.localhost:7070  résumé   8000  ssh -p 7022 vm+cv@localhost  local   ${T0}\n`,
  );
});

test('https_url follows TLS, the domain and the HTTP port; the ssh_* fields are null with SSH off', async () => {
  const other = await openCommandFixture({
    config: { domain: 'dev.example', tls: { cert: Buffer.from('c'), key: Buffer.from('k') } },
    ssh: null,
  });
  try {
    const zed = other.addUser('zed@example.com');
    other.addVm(zed, 'site');
    const data = (await other.run(zed, 'ls')) as { vms: Record<string, unknown>[] };
    assert.equal(data.vms[0]?.https_url, 'https://site.dev.example:7070');
    for (const field of ['ssh_dest', 'ssh_host', 'ssh_port', 'ssh_user']) {
      assert.equal(data.vms[0]?.[field], null, field);
    }
  } finally {
    await other.cleanup();
  }
});

test('ssh_dest names the domain when the SSH listener is on every interface', async () => {
  const other = await openCommandFixture({ ssh: { host: '0.0.0.0', port: 2222 } });
  try {
    const zed = other.addUser('zed@example.com');
    other.addVm(zed, 'site');
    const data = (await other.run(zed, 'ls')) as { vms: Record<string, unknown>[] };
    assert.equal(data.vms[0]?.ssh_dest, 'vm+site@localhost');
    assert.equal(data.vms[0]?.ssh_port, 2222);
  } finally {
    await other.cleanup();
  }
});

test('ssh_dest names the listen address when it is neither loopback nor wildcard', async () => {
  const other = await openCommandFixture({ ssh: { host: '10.1.2.3', port: 22 } });
  try {
    const zed = other.addUser('zed@example.com');
    other.addVm(zed, 'site');
    const data = (await other.run(zed, 'ls')) as { vms: Record<string, unknown>[] };
    const { ssh_dest, ssh_host, ssh_port, ssh_user } = data.vms[0]!;
    assert.deepEqual(
      { ssh_dest, ssh_host, ssh_port, ssh_user },
      { ssh_dest: 'vm+site@10.1.2.3', ssh_host: '10.1.2.3', ssh_port: 22, ssh_user: 'vm+site' },
    );
    assert.match(await other.text(zed, 'ls -l'), / ssh vm\+site@10\.1\.2\.3 /);
  } finally {
    await other.cleanup();
  }
});

test('under --compat exe.dev: https_url uses --vm-domain, ssh_dest never names exe.dev', async () => {
  const other = await openCommandFixture({
    config: { compat: 'exe.dev', domain: 'exe.dev', vmDomain: 'exe.xyz' },
    ssh: { host: '0.0.0.0', port: 2222 },
  });
  try {
    const zed = other.addUser('zed@example.com');
    other.addVm(zed, 'site');
    const data = (await other.run(zed, 'ls')) as { vms: Record<string, unknown>[] };
    assert.equal(data.vms[0]?.https_url, 'http://site.exe.xyz:7070');
    // The real service's host would send the user there: the emulator's own name instead.
    assert.equal(data.vms[0]?.ssh_dest, 'vm+site@localhost');
    assert.equal(data.vms[0]?.ssh_host, 'localhost');
    assert.equal(data.vms[0]?.ssh_port, 2222);
  } finally {
    await other.cleanup();
  }
});
