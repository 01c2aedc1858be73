import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMAND_CATALOG } from '../../../../src/command-catalog.js';
import { buildRegistry } from '../../../../src/service/commands/index.js';
import { parseArgs } from '../../../../src/service/dispatch/args.js';
import { lexCommandLine } from '../../../../src/shell-words.js';
import { textViewFor } from '../../../../src/text-views/index.js';
import { openCommandFixture, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;

before(async () => {
  fx = await openCommandFixture();
  ada = fx.addUser('ada@example.com');
  fx.addVm(ada, 'web');
});
after(() => fx.cleanup());

/** `ssh` and `integrations ...` are other engineers' commands, registered beside these. */
const isOthers = (path: string) =>
  path === 'ssh' || path === 'integrations' || path.startsWith('integrations ');

/** Every other command path of SPEC §3 this registry serves, parents before children. */
const ALL_PATHS = [
  'help',
  'whoami',
  'ls',
  'new',
  'browser',
  'cp',
  'rm',
  'restart',
  'rename',
  'tag',
  'comment',
  'stat',
  'resize',
  'pause',
  'resume',
  'ssh-key',
  'ssh-key list',
  'ssh-key add',
  'ssh-key remove',
  'ssh-key rename',
  'ssh-key generate-api-key',
  'svc0-to-svc1',
  'share',
  'share show',
  'share port',
  'share set-public',
  'share set-private',
  'share add',
  'share remove',
  'share add-link',
  'share remove-link',
  'share access',
  'share receive-email',
  'share add-share-link',
  'share remove-share-link',
  'domain',
  'domain add',
  'domain rm',
  'domain ls',
  'defaults',
  'defaults read',
  'defaults write',
  'defaults delete',
  'team',
  'team members',
  'team add',
  'team remove',
  'team accept',
  'team decline',
  'team leave',
  'set-region',
  'integrations',
  'integrations list',
  'integrations add',
  'integrations remove',
  'integrations rename',
  'integrations attach',
  'integrations detach',
  'ssh',
];

const TOP_LEVEL = ALL_PATHS.filter((p) => !p.includes(' '));

const names = (data: unknown) =>
  (data as { commands: { name: string }[] }).commands.map((c) => c.name);

test('help lists the top-level commands and groups; help all lists every path', async () => {
  assert.deepEqual(names(await fx.run(ada, 'help')), TOP_LEVEL);
  assert.deepEqual(names(await fx.run(ada, 'help all')), ALL_PATHS);
  const listing = (await fx.run(ada, 'help all')) as { commands: Record<string, string>[] };
  for (const entry of listing.commands) {
    assert.deepEqual(Object.keys(entry), ['name', 'usage', 'description']);
    assert.ok(entry.description!.length > 0, entry.name);
  }
  const team = listing.commands.find((c) => c.name === 'team');
  assert.deepEqual(team, {
    name: 'team',
    usage: 'team',
    description: 'Show your team: name, owner, number of members, your role and invitations',
  });
});

test('every command agrees with the shared catalogue on its path and on mutates', () => {
  const registry = buildRegistry();
  const commands = registry.all().filter((n) => n.definition !== undefined);
  for (const node of commands) {
    // An alias (`share add-share-link`) runs the catalogue's command it names.
    const entry = COMMAND_CATALOG.find((e) => e.path === node.commandPath);
    assert.ok(entry !== undefined, `${node.path} is in the catalogue`);
    assert.equal(node.definition!.mutates, entry.mutates, node.path);
  }
  // What the catalogue has beyond this registry belongs to other engineers' commands.
  const missing = COMMAND_CATALOG.map((e) => e.path).filter(
    (p) => !commands.some((n) => n.path === p),
  );
  assert.deepEqual(
    missing.filter((p) => !isOthers(p)),
    [],
  );
});

test('<path> --help answers the same JSON as help <path>, in the SPEC §2 shape', async () => {
  const before = JSON.stringify([
    fx.store.listKeys(ada.account.id),
    fx.store.listVmsOwnedBy(ada.account.id),
  ]);
  for (const path of ALL_PATHS) {
    const viaFlag = (await fx.run(ada, `${path} --help`)) as Record<string, unknown>;
    assert.deepEqual(viaFlag, await fx.run(ada, `help ${path}`), path);
    assert.deepEqual(
      Object.keys(viaFlag),
      ['name', 'usage', 'description', 'flags', 'examples', 'subcommands'],
      path,
    );
    assert.equal(viaFlag.name, path);
    for (const flag of viaFlag.flags as Record<string, unknown>[]) {
      assert.deepEqual(Object.keys(flag), ['name', 'type', 'default', 'description'], path);
      assert.match(String(flag.name), /^--[a-z][a-z-]+$/);
      assert.ok(String(flag.description).length > 0, `${path} ${String(flag.name)}`);
    }
  }
  // --help runs nothing: not even generate-api-key made a key.
  const after = JSON.stringify([
    fx.store.listKeys(ada.account.id),
    fx.store.listVmsOwnedBy(ada.account.id),
  ]);
  assert.equal(after, before);
});

test('exact help of ssh-key generate-api-key', async () => {
  assert.deepEqual(await fx.run(ada, 'ssh-key generate-api-key --help'), {
    name: 'ssh-key generate-api-key',
    usage: 'ssh-key generate-api-key [--label L] [--vm V] [--tag T] [--cmds a,b] [--exp 30d|never]',
    description:
      'Make an API token (svc1) signed by a fresh key registered under a label; remove the key to revoke it',
    flags: [
      {
        name: '--label',
        type: 'string',
        default: null,
        description: 'Name of the new key (default: api-key-<date>, made unique)',
      },
      {
        name: '--vm',
        type: 'string',
        default: null,
        description: 'Make a token for this VM (v0@<vm>.<domain>)',
      },
      {
        name: '--tag',
        type: 'string',
        default: null,
        description:
          'Scope the key to VMs tagged T: its new VMs get T, it sees only VMs tagged T, it cannot change tags',
      },
      {
        name: '--cmds',
        type: 'string[]',
        default: [],
        description:
          "Commands the token may run, comma-separated, repeatable (default: the caller's own)",
      },
      {
        name: '--exp',
        type: 'string',
        default: null,
        description:
          "Lifetime: a duration (30s, 15m, 1h, 7d, 2w, 1y) or never (default 30d, cut to the request token's own expiry; a longer --exp is refused)",
      },
    ],
    examples: [
      'ssh-key generate-api-key --exp=30d',
      "ssh-key generate-api-key --label ci --cmds 'ls,ssh web' --exp 7d",
      'ssh-key generate-api-key --vm web --exp 1y',
      "ssh-key generate-api-key --label ci --tag ci --cmds 'ls,new,ssh,rm' --exp 30d",
    ],
    subcommands: [],
  });
});

test('team is a command and the parent of its subcommands', async () => {
  const help = (await fx.run(ada, 'team --help')) as { subcommands: { name: string }[] };
  assert.deepEqual(
    help.subcommands.map((s) => s.name),
    ['team members', 'team add', 'team remove', 'team accept', 'team decline', 'team leave'],
  );
});

test('every command has a usage starting with its path, a text form, and examples that parse', () => {
  const registry = buildRegistry();
  for (const node of registry.all()) {
    const def = node.definition;
    if (def === undefined) continue;
    assert.ok(def.usage === def.path || def.usage.startsWith(`${def.path} `), def.path);
    // `ssh` answers with the VM's raw output, which is already text.
    if (def.path !== 'ssh') {
      assert.notEqual(textViewFor(def.path), undefined, `${def.path} has a text form`);
    }
    assert.ok(def.examples.length > 0, `${def.path} has an example`);
    for (const example of def.examples) {
      const resolved = registry.resolve(lexCommandLine(example));
      // help's examples also show the `<command> --help` form.
      if (def.path === 'help' && example.endsWith(' --help')) continue;
      assert.equal(resolved.node.path, def.path, example);
      const parsed = parseArgs(def, resolved.rest);
      assert.equal(parsed.error, undefined, `${example}: ${parsed.error?.message}`);
    }
  }
});
