import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExectlError } from '../../../../src/errors.js';
import { CommandRegistry } from '../../../../src/service/dispatch/registry.js';
import type { CommandDefinition } from '../../../../src/service/dispatch/types.js';
import { lsCommand, testRegistry, type TestDeps } from './fixtures.js';
import { dialectsFor } from '../../../../src/dialects.js';

const RESOLVED: [argv: string[], path: string, rest: string[]][] = [
  [['ls'], 'ls', []],
  [['ls', '-l', 'web*'], 'ls', ['-l', 'web*']],
  [['ssh-key', 'list'], 'ssh-key list', []],
  [['ssh-key', 'list', '--json'], 'ssh-key list', ['--json']],
  [['ssh-key', 'add', 'list'], 'ssh-key add', ['list']],
  // `team` is a command and a parent: the longest registered path wins.
  [['team'], 'team', []],
  [['team', 'members'], 'team members', []],
  [['team', 'members', 'x'], 'team members', ['x']],
  [['team', 'frob'], 'team', ['frob']],
  [['team', '--help'], 'team', ['--help']],
  // A group resolves only to answer its --help.
  [['ssh-key', '--help'], 'ssh-key', ['--help']],
  [['ssh-key', '--json', '--help'], 'ssh-key', ['--json', '--help']],
  [['help', 'ssh-key', 'list'], 'help', ['ssh-key', 'list']],
];

test('resolve finds the longest registered command path and the words after it', () => {
  const registry = testRegistry();
  for (const [argv, path, rest] of RESOLVED) {
    const resolution = registry.resolve(argv);
    assert.equal(resolution.node.path, path, argv.join(' '));
    assert.deepEqual(resolution.rest, rest, argv.join(' '));
  }
});

test('resolve returns a group node without a definition, a command node with one', () => {
  const registry = testRegistry();
  assert.equal(registry.resolve(['ssh-key', '--help']).node.definition, undefined);
  assert.equal(registry.resolve(['ls']).node.definition, lsCommand);
});

const UNKNOWN: [argv: string[], message: string, suggest?: string][] = [
  [['frob'], 'unknown command: frob'],
  [['frob', 'x', 'y'], 'unknown command: frob'],
  [['--help'], 'unknown command: --help'],
  [['LS'], 'unknown command: LS'],
  [['ssh-key'], 'unknown command: ssh-key'],
  [['ssh-key', 'frob'], 'unknown command: ssh-key frob'],
  [['ssh-key', 'frob', '--help'], 'unknown command: ssh-key frob'],
  [['ssh-key', '--json'], 'unknown command: ssh-key'],
  [['ssh-key', '--', '--help'], 'unknown command: ssh-key'],
  // A likely typo of the last word typed gets the nearest paths (did-you-mean.ts, issue 28), in
  // a header: SPEC §2's message stays exact (issue 29).
  [['ssh-key', 'lists'], 'unknown command: ssh-key lists', 'ssh-key list'],
  [['ssh-keys', 'list'], 'unknown command: ssh-keys', 'ssh-key'],
];

test('resolve answers 404 "unknown command: <what was typed>"', () => {
  const registry = testRegistry();
  for (const [argv, message, suggest] of UNKNOWN) {
    assert.throws(
      () => registry.resolve(argv),
      (err: unknown) => {
        assert.ok(err instanceof ExectlError);
        assert.equal(err.code, 'unknown_command');
        assert.equal(err.status, 404);
        assert.equal(err.message, message, argv.join(' '));
        assert.equal(err.headers['X-Exec-Suggest'], suggest, argv.join(' '));
        return true;
      },
    );
  }
});

test('lookup finds exact paths, groups included, and 404s anything else', () => {
  const registry = testRegistry();
  assert.equal(registry.lookup(['team', 'members']).path, 'team members');
  assert.equal(registry.lookup(['ssh-key']).usage, 'ssh-key <subcommand>');
  for (const path of [['team', 'members', 'x'], ['nope'], []]) {
    assert.throws(() => registry.lookup(path), {
      name: 'ExectlError',
      message: `unknown command: ${path.join(' ')}`,
    });
  }
});

test('topLevel and all list nodes in registration order, parents before children', () => {
  const registry = testRegistry();
  const top = ['help', 'ls', 'new', 'rm', 'rename', 'ssh', 'whoami', 'ssh-key', 'team'];
  assert.deepEqual(
    registry.topLevel().map((n) => n.path),
    [...top, 'wait', 'boom'],
  );
  assert.deepEqual(
    registry.all().map((n) => n.path),
    [...top.slice(0, -1), 'ssh-key list', 'ssh-key add', 'team', 'team members', 'wait', 'boom'],
  );
  assert.deepEqual(
    registry.lookup(['team']).children.map((n) => n.path),
    ['team members'],
  );
});

function definition(overrides: Partial<CommandDefinition<TestDeps>>): CommandDefinition<TestDeps> {
  return { ...lsCommand, ...overrides };
}

const INVALID: [def: CommandDefinition<TestDeps>, message: string][] = [
  [definition({ path: 'Ls' }), 'invalid command path "Ls": lowercase words separated by one space'],
  [
    definition({ path: 'ssh-key  list' }),
    'invalid command path "ssh-key  list": lowercase words separated by one space',
  ],
  [definition({ path: '' }), 'invalid command path "": lowercase words separated by one space'],
  [definition({ path: 'ls' }), '"ls" is already registered'],
  [definition({ path: 'share show' }), 'cannot register "share show": register "share" first'],
  [
    definition({ flags: [{ name: 'json', type: 'boolean', description: '' }] }),
    'command "ls": --json is accepted by every command',
  ],
  [
    definition({ flags: [{ name: 'help', type: 'boolean', description: '' }] }),
    'command "ls": --help is accepted by every command',
  ],
  [
    definition({ flags: [{ name: 'x', type: 'boolean', description: '' }] }),
    'command "ls": invalid flag name "x"',
  ],
  [
    definition({
      flags: [
        { name: 'all', type: 'boolean', description: '' },
        { name: 'all', type: 'string', description: '' },
      ],
    }),
    'command "ls": flag --all declared twice',
  ],
  [
    definition({
      flags: [
        { name: 'all', short: 'a', type: 'boolean', description: '' },
        { name: 'any', short: 'a', type: 'boolean', description: '' },
      ],
    }),
    'command "ls": short flag -a declared twice',
  ],
  [
    definition({ flags: [{ name: 'all', short: 'ab', type: 'boolean', description: '' }] }),
    'command "ls": invalid short flag "ab"',
  ],
  [
    definition({ flags: [{ name: 'all', type: 'string', default: ['x'], description: '' }] }),
    'command "ls": default of --all does not fit string',
  ],
  [
    definition({ flags: [{ name: 'all', type: 'string[]', default: 'x', description: '' }] }),
    'command "ls": default of --all does not fit string[]',
  ],
  [
    definition({
      args: [
        { name: 'a', required: false },
        { name: 'b', required: true },
      ],
    }),
    'command "ls": required <b> follows an optional argument',
  ],
  [
    definition({
      args: [
        { name: 'a', required: true, variadic: true },
        { name: 'b', required: false },
      ],
    }),
    'command "ls": only the last argument may be variadic',
  ],
  [
    definition({ args: [{ name: 'a', required: true, raw: true }] }),
    'command "ls": only a last, variadic argument may be raw',
  ],
];

test('register refuses malformed definitions with a plain Error naming the problem', () => {
  for (const [def, message] of INVALID) {
    const registry = new CommandRegistry<TestDeps>();
    registry.register(lsCommand);
    assert.throws(() => registry.register(def), { name: 'Error', message });
  }
});

test('registerGroup follows the same placement rules', () => {
  const registry = new CommandRegistry<TestDeps>();
  registry.registerGroup({ path: 'share', description: 'Share VMs' });
  assert.throws(() => registry.registerGroup({ path: 'share', description: '' }), {
    message: '"share" is already registered',
  });
  assert.throws(() => registry.registerGroup({ path: 'a b', description: '' }), {
    message: 'cannot register "a b": register "a" first',
  });
});

test('registerAlias: another name of the same definition, in its dialect; both names grant it', () => {
  const registry = testRegistry();
  const exeDev = dialectsFor('exe.dev')[1]!;
  registry.registerAlias('list-vms', 'ls', exeDev);
  const alias = registry.resolve(['list-vms', '-l']);
  const own = registry.resolve(['ls']);
  assert.equal(alias.node.definition, own.node.definition);
  assert.deepEqual(
    [alias.node.path, alias.node.commandPath, alias.node.dialect.compat, alias.rest],
    ['list-vms', 'ls', 'exe.dev', ['-l']],
  );
  assert.deepEqual([own.node.commandPath, own.node.dialect.compat], ['ls', null]);
  assert.deepEqual(
    [alias.node.names, own.node.names],
    [
      ['ls', 'list-vms'],
      ['ls', 'list-vms'],
    ],
  );
  assert.match(alias.node.usage, /^list-vms/);
  assert.throws(() => registry.registerAlias('ls', 'ls', exeDev), /"ls" is already registered/);
  assert.throws(
    () => registry.registerAlias('x', 'ssh-key', exeDev),
    /cannot alias "x": "ssh-key" is not a command/,
  );
});
