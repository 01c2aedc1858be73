// Tag-scoped API keys (`ssh-key generate-api-key --tag T`, SPEC §3) through the real dispatcher:
// a scoped caller's principal is built from the key as the store holds it, as token-auth does.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemorySigner } from '../../../helpers/signers.js';
import { openCommandFixture, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;
let bob: User;
/** ada's key scoped to `ci`, not limited by cmds. */
let ci: User;

interface ApiKey {
  fingerprint: string;
}

/** A caller signing with the key `apiKey` of `owner`, its tag read back from the store. */
function callerWith(owner: User, apiKey: ApiKey, cmds: readonly string[] | null = null): User {
  const key = fx.store.findKeyByFingerprint(apiKey.fingerprint);
  assert.ok(key !== undefined);
  const principal = { ...owner.principal, keyFingerprint: key.fingerprint, tag: key.tag, cmds };
  return { ...owner, principal };
}

const SCOPE_REFUSAL = (what: string) => ({
  status: 403,
  message: `this key is limited to vms tagged "ci" and cannot ${what}: use a key without --tag`,
  body: undefined,
});

before(async () => {
  fx = await openCommandFixture();
  ada = fx.addUser('ada@example.com');
  bob = fx.addUser('bob@example.com');
  fx.addVm(ada, 'build', { tags: ['ci'] });
  fx.addVm(ada, 'prod', { tags: ['prod'] });
  fx.addVm(ada, 'plain');
  // bob's VMs shared with ada: one tagged ci, one not.
  fx.addVm(bob, 'bob-ci', { tags: ['ci'] });
  fx.addVm(bob, 'bob-web', { tags: ['web'] });
  await fx.run(bob, 'share add bob-ci ada@example.com');
  await fx.run(bob, 'share add bob-web ada@example.com');
  await fx.run(ada, 'integrations add reflection --name refl --attach tag:ci');
  ci = callerWith(
    ada,
    (await fx.run(ada, 'ssh-key generate-api-key --label ci --tag ci')) as ApiKey,
  );
});
after(() => fx.cleanup());

test('the key is stored with its tag, and ssh-key list shows it (null for the others)', async () => {
  const list = (await fx.run(ada, 'ssh-key list')) as { ssh_keys: Record<string, unknown>[] };
  assert.deepEqual(
    list.ssh_keys.map((k) => [k.name, k.tag, k.current]),
    [
      ['default', null, true],
      ['ci', 'ci', false],
    ],
  );
  // The scoped key itself sees only itself.
  const own = (await fx.run(ci, 'ssh-key list')) as { ssh_keys: Record<string, unknown>[] };
  assert.deepEqual(
    own.ssh_keys.map((k) => [k.name, k.tag, k.current]),
    [['ci', 'ci', true]],
  );
  assert.match(await fx.text(ada, 'ssh-key list'), /^ +ci +SHA256:\S+ +\S+ +- +ci$/m);
});

test('--tag is checked as a tag', async () => {
  assert.deepEqual(await fx.fail(ada, 'ssh-key generate-api-key --tag CI'), {
    status: 422,
    message:
      'invalid tag "CI": use 1 to 63 lowercase letters, digits, "_" or "-", starting with a letter',
    body: undefined,
  });
});

test('ls lists only the VMs tagged ci: its own and those shared with the account', async () => {
  const names = async (line: string) =>
    ((await fx.run(ci, line)) as { vms: { vm_name: string }[] }).vms.map((v) => v.vm_name);
  assert.deepEqual(await names('ls'), ['bob-ci', 'build']);
  assert.deepEqual(await names("ls 'b*'"), ['bob-ci', 'build']);
  assert.deepEqual(await names('ls prod'), []);
  // The account's unscoped key still sees everything.
  const all = (await fx.run(ada, 'ls')) as { vms: { vm_name: string }[] };
  assert.equal(all.vms.length, 5);
});

test('share show lists only own VMs tagged ci', async () => {
  const data = (await fx.run(ci, 'share show')) as { shares: { vm_name: string }[] };
  assert.deepEqual(
    data.shares.map((s) => s.vm_name),
    ['build'],
  );
});

// Every command that names a VM: a VM outside the scope answers exactly as a VM that does not
// exist, so the key cannot even learn that it exists.
const NAMING_A_VM = [
  'rm VM',
  'restart VM',
  'rename VM other-name',
  'comment VM hello',
  'stat VM',
  'resize VM --cpu 1',
  'pause VM',
  'resume VM',
  'cp VM',
  'ssh VM true',
  'share show VM',
  'share port VM 3000',
  'share set-private VM',
  'share remove VM eve@example.com',
  'integrations attach refl vm:VM',
  'ssh-key generate-api-key --vm VM',
  'svc0-to-svc1 --vm VM svc0.e30.AAAA',
];

for (const template of NAMING_A_VM) {
  test(`${template}: a VM outside the scope is "not found", as one that does not exist`, async () => {
    for (const outside of ['prod', 'plain']) {
      const failure = await fx.fail(ci, template.replace('VM', outside));
      const missing = await fx.fail(ci, template.replace('VM', 'no-such-vm'));
      assert.equal(failure.status, 422, template);
      assert.equal(failure.message, `vm "${outside}" not found`, template);
      assert.deepEqual(
        JSON.stringify(failure.body)?.replaceAll(outside, 'X'),
        JSON.stringify(missing.body)?.replaceAll('no-such-vm', 'X'),
        template,
      );
    }
  });
}

test('a VM of another account shared with the account is seen only when tagged ci', async () => {
  assert.equal(((await fx.run(ci, 'stat bob-ci')) as { vm_name: string }).vm_name, 'bob-ci');
  assert.deepEqual(await fx.fail(ci, 'stat bob-web'), {
    status: 422,
    message: 'vm "bob-web" not found',
    body: undefined,
  });
});

test('a VM in the scope is touched as usual', async () => {
  assert.deepEqual(await fx.run(ci, 'comment build nightly'), {
    vm_name: 'build',
    comment: 'nightly',
  });
  assert.deepEqual(await fx.run(ci, 'share port build 3000'), { vm_name: 'build', port: 3000 });
});

test('share add and share set-public are refused (403), in the scope or out of it: a scoped key never opens a VM to more people', async () => {
  fx.addUser('eve@example.com');
  for (const vm of ['build', 'prod', 'no-such-vm']) {
    for (const line of [`share add ${vm} eve@example.com`, `share set-public ${vm}`]) {
      assert.deepEqual(await fx.fail(ci, line), SCOPE_REFUSAL('open a vm to more people'), line);
    }
  }
  const { shares } = (await fx.run(ada, 'share show build')) as {
    shares: { visibility: string; users: unknown[] }[];
  };
  assert.deepEqual(
    shares.map(({ visibility, users }) => ({ visibility, users })),
    [{ visibility: 'private', users: [] }],
  );
  // What narrows the reach still runs.
  assert.equal(
    ((await fx.run(ci, 'share set-private build')) as { vm_name: string }).vm_name,
    'build',
  );
});

test('tag is refused (403), for a VM in the scope, outside it, or missing, and with -d', async () => {
  for (const line of ['tag build x', 'tag -d build ci', 'tag prod ci', 'tag no-such-vm ci']) {
    assert.deepEqual(await fx.fail(ci, line), SCOPE_REFUSAL('change tags'), line);
  }
  assert.deepEqual(fx.store.getVmByName('build')?.tags, ['ci']);
  assert.deepEqual(fx.store.getVmByName('prod')?.tags, ['prod']);
});

test('new: the VM gets tag ci, and no other (issue 25); ls then lists it', async () => {
  assert.deepEqual(
    await fx.fail(ci, 'new --name made-by-ci --tag extra'),
    SCOPE_REFUSAL('give its vms other tags'),
  );
  const made = (await fx.run(ci, 'new --name made-by-ci')) as { tags: string[] };
  assert.deepEqual(made.tags, ['ci']);
  const again = (await fx.run(ci, 'new --name tagged-twice --tag ci')) as { tags: string[] };
  assert.deepEqual(again.tags, ['ci']);
  const listed = (await fx.run(ci, 'ls made-by-ci')) as { vms: unknown[] };
  assert.equal(listed.vms.length, 1);
});

test('cp: the copy of a VM in the scope is in the scope too', async () => {
  // The copy gets the source's tags: the source is in the scope, so nothing new is reached.
  await fx.run(ada, 'new --name two-tags --tag ci --tag extra');
  const copy = (await fx.run(ci, 'cp two-tags ci-copy')) as { tags: string[] };
  assert.deepEqual(copy.tags, ['ci', 'extra']);
});

test('keys made with a scoped key keep its scope; another tag is refused', async () => {
  const inherited = (await fx.run(ci, 'ssh-key generate-api-key --label ci-child')) as ApiKey;
  assert.equal(fx.store.findKeyByFingerprint(inherited.fingerprint)?.tag, 'ci');
  const same = (await fx.run(ci, 'ssh-key generate-api-key --label ci-same --tag ci')) as ApiKey;
  assert.equal(fx.store.findKeyByFingerprint(same.fingerprint)?.tag, 'ci');
  assert.deepEqual(
    await fx.fail(ci, 'ssh-key generate-api-key --label other --tag prod'),
    SCOPE_REFUSAL('make a key for tag "prod"'),
  );
  // Adding a key is refused outright (issue 25): it could re-add an owner's key under its tag.
  const line = createMemorySigner('ed25519', 'laptop').publicKey.toOpenSsh();
  assert.deepEqual(
    await fx.fail(ci, `ssh-key add --name added-by-ci ${line}`),
    SCOPE_REFUSAL('add keys'),
  );
});

test('integrations: a scoped key attaches only to its tag or to VMs in its scope', async () => {
  for (const spec of ['auto:all', 'tag:prod']) {
    assert.deepEqual(
      await fx.fail(ci, `integrations attach refl ${spec}`),
      SCOPE_REFUSAL(`attach integrations to ${spec}`),
    );
    assert.deepEqual(
      await fx.fail(ci, `integrations add reflection --name r2 --attach ${spec}`),
      SCOPE_REFUSAL(`attach integrations to ${spec}`),
    );
  }
  const again = (await fx.run(ci, 'integrations attach refl vm:build')) as {
    attachments: string[];
  };
  assert.deepEqual(again.attachments, ['tag:ci', 'vm:build']);
  // The unscoped key attaches anything.
  const all = (await fx.run(ada, 'integrations attach refl auto:all')) as { attachments: string[] };
  assert.deepEqual(all.attachments, ['auto:all', 'tag:ci', 'vm:build']);
});

test('a scoped key limited by cmds still cannot grant more than its cmds', async () => {
  const limited = callerWith(
    ada,
    (await fx.run(ada, 'ssh-key generate-api-key --label ci-ls --tag ci')) as ApiKey,
    ['ls', 'ssh-key generate-api-key'],
  );
  assert.deepEqual(await fx.fail(limited, "ssh-key generate-api-key --cmds 'ls,rm'"), {
    status: 422,
    message: 'cannot grant "rm": the token of this request does not allow it',
    body: undefined,
  });
  assert.deepEqual(await fx.fail(limited, 'rm build'), {
    status: 403,
    message: 'command not allowed: rm',
    body: undefined,
  });
});

test('an unscoped key: --vm with --tag needs the VM to carry the tag', async () => {
  assert.deepEqual(await fx.fail(ada, 'ssh-key generate-api-key --vm prod --tag ci'), {
    status: 422,
    message: 'vm "prod" is not tagged "ci"',
    body: undefined,
  });
  const ok = (await fx.run(ada, 'ssh-key generate-api-key --vm build --tag ci')) as ApiKey;
  assert.equal(fx.store.findKeyByFingerprint(ok.fingerprint)?.tag, 'ci');
});

test('integrations: a scoped key detaches, removes or renames nothing that reaches past its tag', async () => {
  await fx.run(ada, 'integrations add reflection --name wide --attach auto:all --attach tag:ci');
  await fx.run(ada, 'integrations add reflection --name narrow --attach tag:ci --attach vm:build');
  for (const spec of ['auto:all', 'tag:prod', 'vm:prod', 'vm:bob-ci', 'vm:no-such-vm']) {
    assert.deepEqual(
      await fx.fail(ci, `integrations detach wide ${spec}`),
      SCOPE_REFUSAL(`detach integrations from ${spec}`),
    );
  }
  assert.deepEqual(
    await fx.fail(ci, 'integrations remove wide'),
    SCOPE_REFUSAL('remove integration "wide", which reaches vms past tag "ci"'),
  );
  assert.deepEqual(
    await fx.fail(ci, 'integrations rename wide wider'),
    SCOPE_REFUSAL('rename integration "wide", which reaches vms past tag "ci"'),
  );
  // Inside its scope it may: the attachments it could have made, and an integration they make up.
  const detached = (await fx.run(ci, 'integrations detach wide tag:ci')) as {
    attachments: string[];
  };
  // It is shown only the attachments in its scope: none are left.
  assert.deepEqual(detached.attachments, []);
  assert.deepEqual(fx.store.getIntegration(ada.account.id, 'wide')?.attachments, ['auto:all']);
  await fx.run(ci, 'integrations rename narrow narrower');
  assert.deepEqual(await fx.run(ci, 'integrations remove narrower'), { removed: 'narrower' });
  // The unscoped key is not limited.
  assert.deepEqual(await fx.run(ada, 'integrations remove wide'), { removed: 'wide' });
});
