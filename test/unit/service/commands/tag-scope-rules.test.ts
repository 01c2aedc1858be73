// The tag-scope rule over every command (SPEC §3, issue 25): what a key made with
// `ssh-key generate-api-key --tag ci` may run, and what it sees of its account's keys and
// integrations. Through the real dispatcher, the principal built from the key as stored.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMAND_CATALOG } from '../../../../src/command-catalog.js';
import { ExectlError } from '../../../../src/errors.js';
import { scopedKeyRulePaths } from '../../../../src/service/rules/tag-scope.js';
import { mintSvc0 } from '../../../../src/token/mint.js';
import { createMemorySigner } from '../../../helpers/signers.js';
import { openCommandFixture, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;
/** ada's key scoped to `ci`, not limited by cmds. */
let ci: User;

const refused = (what: string) => ({
  status: 403,
  message: `this key is limited to vms tagged "ci" and cannot ${what}: use a key without --tag`,
  body: undefined,
});

/** A public key line nobody has registered yet. */
const freshKeyLine = (name: string) => createMemorySigner('ed25519', name).publicKey.toOpenSsh();

before(async () => {
  fx = await openCommandFixture();
  ada = fx.addUser('ada@example.com');
  fx.addUser('bob@example.com');
  fx.addVm(ada, 'build', { tags: ['ci'] });
  fx.addVm(ada, 'prod', { tags: ['prod'] });
  await fx.run(ada, 'integrations add reflection --name secret');
  await fx.run(ada, 'integrations add reflection --name wide --attach vm:prod --attach tag:ci');
  const made = (await fx.run(ada, 'ssh-key generate-api-key --label ci --tag ci')) as {
    fingerprint: string;
  };
  const key = fx.store.findKeyByFingerprint(made.fingerprint);
  assert.ok(key !== undefined);
  ci = { ...ada, principal: { ...ada.principal, keyFingerprint: key.fingerprint, tag: key.tag } };
});
after(() => fx.cleanup());

/**
 * Every command path, a line that runs it, and what the tag-scoped key gets: `runs` (the scope
 * lets it through: it succeeds, or fails for a reason of its own), or the scope's 403.
 */
const EVERY_COMMAND: [path: string, line: string, outcome: 'runs' | ReturnType<typeof refused>][] =
  [
    ['help', 'help', 'runs'],
    ['whoami', 'whoami', 'runs'],
    ['ls', 'ls', 'runs'],
    ['new', 'new --name ci-new', 'runs'],
    ['browser', 'browser', 'runs'],
    ['cp', 'cp no-such-vm', 'runs'],
    ['rm', 'rm no-such-vm', 'runs'],
    ['restart', 'restart no-such-vm', 'runs'],
    ['rename', 'rename no-such-vm other', 'runs'],
    ['tag', 'tag build extra', refused('change tags')],
    ['comment', 'comment build nightly', 'runs'],
    ['stat', 'stat build', 'runs'],
    ['resize', 'resize no-such-vm --cpu 1', 'runs'],
    ['pause', 'pause no-such-vm', 'runs'],
    ['resume', 'resume no-such-vm', 'runs'],
    ['ssh-key list', 'ssh-key list', 'runs'],
    ['ssh-key add', `ssh-key add ${freshKeyLine('laptop')}`, refused('add keys')],
    ['ssh-key remove', 'ssh-key remove no-such-key', 'runs'],
    ['ssh-key rename', 'ssh-key rename ci ci-renamed', 'runs'],
    ['ssh-key generate-api-key', 'ssh-key generate-api-key --label ci-child', 'runs'],
    ['svc0-to-svc1', 'svc0-to-svc1 svc0.e30.AAAA', 'runs'],
    ['share show', 'share show', 'runs'],
    ['share port', 'share port build 3000', 'runs'],
    ['share set-public', 'share set-public build', refused('open a vm to more people')],
    ['share set-private', 'share set-private build', 'runs'],
    ['share add', 'share add build eve@example.com', refused('open a vm to more people')],
    ['share remove', 'share remove build eve@example.com', 'runs'],
    ['share add-link', 'share add-link build', refused('open a vm to more people')],
    ['share remove-link', 'share remove-link build nope', 'runs'],
    ['share access', 'share access allow build', refused('open a vm to more people')],
    ['domain add', 'domain add build ci.example.com', 'runs'],
    ['domain rm', 'domain rm build ci.example.com', 'runs'],
    ['domain ls', 'domain ls', 'runs'],
    ['defaults read', 'defaults read', refused("use the account's defaults")],
    [
      'defaults write',
      'defaults write dev.exe new.setup-script x',
      refused("use the account's defaults"),
    ],
    [
      'defaults delete',
      'defaults delete dev.exe new.setup-script',
      refused("use the account's defaults"),
    ],
    ['share receive-email', 'share receive-email build on', 'runs'],
    ['team', 'team', 'runs'],
    ['team members', 'team members', 'runs'],
    ['team add', 'team add bob@example.com', refused('change the team')],
    ['team remove', 'team remove bob@example.com', refused('change the team')],
    ['team accept', 'team accept bob@example.com', refused('change the team')],
    ['team decline', 'team decline', refused('change the team')],
    ['team leave', 'team leave', refused('change the team')],
    ['set-region', 'set-region fra', refused('change the region')],
    ['integrations list', 'integrations list', 'runs'],
    ['integrations add', 'integrations add reflection --name ci-refl', 'runs'],
    ['integrations remove', 'integrations remove no-such-integration', 'runs'],
    ['integrations rename', 'integrations rename no-such-integration x', 'runs'],
    ['integrations attach', 'integrations attach wide vm:build', 'runs'],
    ['integrations detach', 'integrations detach wide vm:build', 'runs'],
    ['ssh', 'ssh no-such-vm true', 'runs'],
  ];

test('the table covers every command, and the rule decides exactly the commands there are', () => {
  const paths = COMMAND_CATALOG.map((c) => c.path);
  assert.deepEqual(
    EVERY_COMMAND.map(([path]) => path),
    paths,
  );
  assert.deepEqual(scopedKeyRulePaths(), paths);
});

for (const [path, line, outcome] of EVERY_COMMAND) {
  test(`${path}: a key scoped to tag ci ${outcome === 'runs' ? 'runs it' : 'is refused (403)'}`, async () => {
    if (outcome !== 'runs') {
      assert.deepEqual(await fx.fail(ci, line), outcome);
      // The same answer whatever the arguments, so a refusal reveals nothing about them.
      assert.deepEqual(await fx.fail(ci, `${path} --help`), outcome);
      return;
    }
    try {
      await fx.run(ci, line);
    } catch (error) {
      // It ran and failed for a reason of its own (a VM or key that is not there): a 422.
      assert.ok(error instanceof ExectlError, String(error));
      assert.equal(error.status, 422, `${line}: ${error.message}`);
    }
  });
}

test('whoami and ssh-key list show the scoped key only its own key', async () => {
  const whoami = (await fx.run(ci, 'whoami')) as { ssh_keys: { name: string }[] };
  assert.deepEqual(
    whoami.ssh_keys.map((k) => k.name),
    ['ci-renamed'],
  );
  const list = (await fx.run(ci, 'ssh-key list')) as { ssh_keys: { name: string }[] };
  assert.deepEqual(
    list.ssh_keys.map((k) => k.name),
    ['ci-renamed'],
  );
  // The owner's key sees them all.
  const all = (await fx.run(ada, 'ssh-key list')) as { ssh_keys: { name: string }[] };
  assert.deepEqual(
    all.ssh_keys.map((k) => k.name),
    ['default', 'ci-renamed', 'ci-child'],
  );
});

test('any other key of the account is "not found", exactly as a key that does not exist', async () => {
  for (const other of ['default', 'ci-child', ada.signer.publicKey.fingerprint]) {
    for (const line of [`ssh-key remove ${other}`, `ssh-key rename ${other} taken-over`]) {
      assert.deepEqual(
        await fx.fail(ci, line),
        { status: 422, message: `ssh key "${other}" not found`, body: undefined },
        line,
      );
    }
  }
  assert.equal(fx.store.listKeys(ada.account.id).length, 3);
});

test('svc0-to-svc1 takes only a token its own key signed', async () => {
  const owners = await mintSvc0('{}', ada.signer, 'v0@localhost');
  assert.deepEqual(await fx.fail(ci, `svc0-to-svc1 ${owners}`), {
    status: 422,
    message: 'invalid svc0 token: not signed by one of your keys for v0@localhost',
    body: undefined,
  });
  assert.match(
    ((await fx.run(ada, `svc0-to-svc1 ${owners}`)) as { token: string }).token,
    /^svc1\./,
  );
});

test('integrations: it sees only those attached to tag:ci, and of them only its scope', async () => {
  const listed = (await fx.run(ci, 'integrations list')) as {
    name: string;
    attachments: string[];
  }[];
  assert.deepEqual(
    listed.map((i) => [i.name, i.attachments]),
    [
      ['ci-refl', ['tag:ci']],
      ['wide', ['tag:ci']],
    ],
  );
  // The owner sees every integration and attachment.
  const all = (await fx.run(ada, 'integrations list')) as {
    name: string;
    attachments: string[];
  }[];
  assert.deepEqual(
    all.map((i) => [i.name, i.attachments]),
    [
      ['ci-refl', ['tag:ci']],
      ['reflection', ['auto:all']],
      ['secret', []],
      ['wide', ['tag:ci', 'vm:prod']],
    ],
  );
});

test('an integration not attached to tag:ci is "not found": it cannot attach it to its VMs', async () => {
  for (const name of ['secret', 'reflection']) {
    const notFound = { status: 422, message: `integration "${name}" not found`, body: undefined };
    for (const line of [
      `integrations attach ${name} tag:ci`,
      `integrations attach ${name} vm:build`,
      `integrations detach ${name} tag:ci`,
      `integrations rename ${name} mine`,
      `integrations remove ${name}`,
      `new --name ci-with-${name} --integration ${name}`,
    ]) {
      assert.deepEqual(await fx.fail(ci, line), notFound, line);
    }
  }
  assert.equal(fx.store.getVmByName('ci-with-secret'), undefined);
  assert.deepEqual(fx.store.getIntegration(ada.account.id, 'secret')?.attachments, []);
});

test('a refusal about an integration past its scope names no VM past it', async () => {
  assert.deepEqual(
    await fx.fail(ci, 'integrations remove wide'),
    refused('remove integration "wide", which reaches vms past tag "ci"'),
  );
});

test('new --tag: it cannot give its VM another tag (and with it the integrations of that tag)', async () => {
  await fx.run(ada, 'integrations add reflection --name prod-only --attach tag:prod');
  assert.deepEqual(
    await fx.fail(ci, 'new --name ci-as-prod --tag prod'),
    refused('give its vms other tags'),
  );
  assert.equal(fx.store.getVmByName('ci-as-prod'), undefined);
  // Its own tag may be named; the VM gets it once.
  const made = (await fx.run(ci, 'new --name ci-tagged --tag ci')) as { tags: string[] };
  assert.deepEqual(made.tags, ['ci']);
});
