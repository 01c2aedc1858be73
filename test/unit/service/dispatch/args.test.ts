import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ExectlError } from '../../../../src/errors.js';
import { parseArgs } from '../../../../src/service/dispatch/args.js';
import type { CommandDefinition, FlagValue } from '../../../../src/service/dispatch/types.js';
import {
  lsCommand,
  newCommand,
  renameCommand,
  rmCommand,
  sshCommand,
  type TestDeps,
} from './fixtures.js';

const NEW_DEFAULTS = { size: 'small', tag: [], env: ['LANG=C'] };

interface Expected {
  flags?: Record<string, FlagValue>;
  args?: string[];
  help?: boolean;
  json?: boolean;
}

const PARSED: [def: CommandDefinition<TestDeps>, words: string[], expected: Expected][] = [
  [lsCommand, [], { flags: { long: false } }],
  [lsCommand, ['-l'], { flags: { long: true } }],
  [lsCommand, ['--long', 'web*'], { flags: { long: true }, args: ['web*'] }],
  [lsCommand, ['web*', '-l'], { flags: { long: true }, args: ['web*'] }],
  [lsCommand, ['-l', '-l'], { flags: { long: true } }],
  [lsCommand, ['--json'], { flags: { long: false }, json: true }],
  [lsCommand, ['--', '-l'], { flags: { long: false }, args: ['-l'] }],
  [lsCommand, ['-'], { flags: { long: false }, args: ['-'] }],
  // As the real service's Go parser: a short flag written long, booleans given a value.
  [lsCommand, ['--l'], { flags: { long: true } }],
  [lsCommand, ['--long=true'], { flags: { long: true } }],
  [lsCommand, ['--long=FALSE'], { flags: { long: false } }],
  [lsCommand, ['-l', '--long=0'], { flags: { long: false } }],
  [lsCommand, ['-l=f'], { flags: { long: false } }],
  [newCommand, [], { flags: NEW_DEFAULTS }],
  [newCommand, ['--name', 'web'], { flags: { ...NEW_DEFAULTS, name: 'web' } }],
  [newCommand, ['--name=web'], { flags: { ...NEW_DEFAULTS, name: 'web' } }],
  [newCommand, ['--name='], { flags: { ...NEW_DEFAULTS, name: '' } }],
  [newCommand, ['--comment=a=b'], { flags: { ...NEW_DEFAULTS, comment: 'a=b' } }],
  [newCommand, ['-n', 'web'], { flags: { ...NEW_DEFAULTS, name: 'web' } }],
  [newCommand, ['--comment', '-x-'], { flags: { ...NEW_DEFAULTS, comment: '-x-' } }],
  [newCommand, ['--comment', '--json'], { flags: { ...NEW_DEFAULTS, comment: '--json' } }],
  [newCommand, ['--size', 'large'], { flags: { ...NEW_DEFAULTS, size: 'large' } }],
  [newCommand, ['--tag', 'a', '--tag=b'], { flags: { ...NEW_DEFAULTS, tag: ['a', 'b'] } }],
  [newCommand, ['--env', 'A=1'], { flags: { ...NEW_DEFAULTS, env: ['A=1'] } }],
  [newCommand, ['-n=web'], { flags: { ...NEW_DEFAULTS, name: 'web' } }],
  [newCommand, ['--n=web'], { flags: { ...NEW_DEFAULTS, name: 'web' } }],
  // A comma list splits where declared (--tag), and nowhere else (--env, --comment).
  [
    newCommand,
    ['--tag=a,b', '--tag', ' c ,,'],
    { flags: { ...NEW_DEFAULTS, tag: ['a', 'b', 'c'] } },
  ],
  [newCommand, ['--tag=,'], { flags: { ...NEW_DEFAULTS, tag: [] } }],
  [newCommand, ['--env=A=1,B=2'], { flags: { ...NEW_DEFAULTS, env: ['A=1,B=2'] } }],
  [newCommand, ['--comment=a,b'], { flags: { ...NEW_DEFAULTS, comment: 'a,b' } }],
  [newCommand, ['--json', '--name', 'x'], { flags: { ...NEW_DEFAULTS, name: 'x' }, json: true }],
  [rmCommand, ['a', 'b', 'c'], { args: ['a', 'b', 'c'] }],
  [rmCommand, ['a', '--json', 'b'], { args: ['a', 'b'], json: true }],
  [rmCommand, ['--', '--json', '-x'], { args: ['--json', '-x'] }],
  [renameCommand, ['old', 'new'], { args: ['old', 'new'] }],
  // ssh: the words after the VM are the remote command, taken verbatim.
  [sshCommand, ['web', 'ls', '-l'], { args: ['web', 'ls', '-l'] }],
  [sshCommand, ['web', 'ls', '--help'], { args: ['web', 'ls', '--help'] }],
  [sshCommand, ['web', '--help'], { args: ['web', '--help'] }],
  [sshCommand, ['web', '--json'], { args: ['web', '--json'] }],
  [sshCommand, ['web', '--', 'ls', '--', 'x'], { args: ['web', 'ls', '--', 'x'] }],
  [sshCommand, ['--json', 'web', 'ls'], { args: ['web', 'ls'], json: true }],
  [sshCommand, ['--', 'web', 'ls'], { args: ['web', 'ls'] }],
  // --help anywhere flags are read, even where a value was expected.
  [lsCommand, ['--help'], { flags: { long: false }, help: true }],
  [lsCommand, ['web*', '--help', '-l'], { flags: { long: true }, args: ['web*'], help: true }],
  [newCommand, ['--name', '--help'], { flags: NEW_DEFAULTS, help: true }],
  [sshCommand, ['--help'], { help: true }],
  [lsCommand, ['--', '--help'], { flags: { long: false }, args: ['--help'] }],
];

test('parseArgs reads every flag form, positionals, --json, --help and raw arguments', () => {
  for (const [def, words, expected] of PARSED) {
    const parsed = parseArgs(def, words);
    const label = `${def.path} ${JSON.stringify(words)}`;
    // With --help the words need not be valid: help answers before any argument error.
    if (expected.help !== true) assert.equal(parsed.error, undefined, label);
    assert.deepEqual(parsed.input.flags.toJSON(), expected.flags ?? {}, label);
    assert.deepEqual(parsed.input.args, expected.args ?? [], label);
    assert.equal(parsed.help, expected.help ?? false, label);
    assert.equal(parsed.json, expected.json ?? false, label);
  }
});

const FAILED: [def: CommandDefinition<TestDeps>, words: string[], message: string][] = [
  [lsCommand, ['--frob'], 'unknown flag "--frob"'],
  [lsCommand, ['--frob=1'], 'unknown flag "--frob"'],
  [lsCommand, ['-x'], 'unknown flag "-x"'],
  [lsCommand, ['-ll'], 'unknown flag "-ll"'],
  [lsCommand, ['--no-long'], 'unknown flag "--no-long"'],
  [lsCommand, ['---long'], 'unknown flag "---long"'],
  [lsCommand, ['--ll'], 'unknown flag "--ll"'],
  [lsCommand, ['--long=yes'], 'flag --long takes true or false, not "yes"'],
  [lsCommand, ['--long='], 'flag --long takes true or false, not ""'],
  [lsCommand, ['--json=1'], 'flag --json does not take a value'],
  [lsCommand, ['--help=1'], 'flag --help does not take a value'],
  [lsCommand, ['a', 'b'], 'unexpected argument "b"'],
  [newCommand, ['web'], 'unexpected argument "web"'],
  [newCommand, ['--name'], 'flag --name needs a value'],
  [newCommand, ['-n'], 'flag --name needs a value'],
  [newCommand, ['--tag'], 'flag --tag needs a value'],
  [newCommand, ['--name', 'a', '--name', 'b'], 'flag --name given more than once'],
  [newCommand, ['-n', 'a', '--name=b'], 'flag --name given more than once'],
  [rmCommand, [], 'missing argument <vm>'],
  [rmCommand, ['--json'], 'missing argument <vm>'],
  [renameCommand, ['old'], 'missing argument <new>'],
  [renameCommand, ['a', 'b', 'c'], 'unexpected argument "c"'],
  [sshCommand, [], 'missing argument <vm>'],
  [sshCommand, ['web'], 'missing argument <command>'],
  [sshCommand, ['web', '--'], 'missing argument <command>'],
  // The first problem is the one reported.
  [lsCommand, ['--frob', 'a', 'b'], 'unknown flag "--frob"'],
  [renameCommand, ['--x', '--y'], 'unknown flag "--x"'],
];

test('parseArgs reports the first problem as a 422 with one clear sentence and a hint', () => {
  for (const [def, words, message] of FAILED) {
    const { error, help } = parseArgs(def, words);
    const label = `${def.path} ${JSON.stringify(words)}`;
    assert.ok(error instanceof ExectlError, label);
    assert.equal(error.code, 'command_failed', label);
    assert.equal(error.status, 422, label);
    assert.equal(error.message, message, label);
    assert.equal(error.hint, `run "${def.path} --help" for usage`, label);
    assert.equal(help, false, label);
  }
});

test('positional words survive a flag error, so authorization can still read them', () => {
  const parsed = parseArgs(sshCommand, ['--frob', 'web', 'ls']);
  assert.equal(parsed.error?.message, 'unknown flag "--frob"');
  assert.deepEqual(parsed.input.args, ['web', 'ls']);
});

test('--help wins over argument errors', () => {
  const parsed = parseArgs(renameCommand, ['--frob', 'a', 'b', 'c', '--help']);
  assert.equal(parsed.help, true);
  assert.equal(parsed.error?.message, 'unknown flag "--frob"');
});

test('flag getters are typed and refuse undeclared or mistyped flags', () => {
  const { input } = parseArgs(newCommand, ['--name', 'web', '--tag', 'a', '--tag', 'b']);
  assert.equal(input.flags.string('name'), 'web');
  assert.equal(input.flags.string('comment'), undefined);
  assert.equal(input.flags.string('size'), 'small');
  assert.deepEqual(input.flags.strings('tag'), ['a', 'b']);
  assert.deepEqual(input.flags.strings('env'), ['LANG=C']);
  assert.equal(parseArgs(lsCommand, ['-l']).input.flags.boolean('long'), true);
  assert.throws(() => input.flags.boolean('name'), {
    message: 'flag --name is not declared as boolean on this command',
  });
  assert.throws(() => input.flags.string('nope'), {
    message: 'flag --nope is not declared as string on this command',
  });
});

test('a default list is copied, never shared between calls', () => {
  const first = parseArgs(newCommand, []).input.flags.strings('env') as string[];
  first.push('MUTATED=1');
  assert.deepEqual(parseArgs(newCommand, []).input.flags.strings('env'), ['LANG=C']);
});

test('property: any words give a result or a 422, never anything else', () => {
  const word = fc.oneof(
    fc.constantFrom('--', '-', '--help', '--json', '-l', '-n', '--name', '--tag=', '--x=y'),
    fc.string(),
  );
  fc.assert(
    fc.property(
      fc.constantFrom(lsCommand, newCommand, rmCommand, renameCommand, sshCommand),
      fc.array(word, { maxLength: 8 }),
      (def, words) => {
        const parsed = parseArgs(def, words);
        assert.ok(parsed.input.args.every((a) => words.includes(a)));
        if (parsed.error !== undefined) assert.equal(parsed.error.code, 'command_failed');
      },
    ),
    { numRuns: 2000 },
  );
});
