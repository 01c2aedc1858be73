// The `exectl run` argument rule, and what the client derives from a command line before sending
// it: the token scope and whether it may be sent again after a connection failure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ExectlError } from '../../../../src/errors.js';
import {
  leadingPlainWords,
  prepareRunLine,
  type PreparedLine,
} from '../../../../src/command-line.js';
import { COMMAND_CATALOG } from '../../../../src/command-catalog.js';
import { DEFAULT_CMDS } from '../../../../src/token/permissions.js';
import { lexCommandLine } from '../../../../src/shell-words.js';
import { BranchShare } from '../../../helpers/branch-share.js';

test('prepareRunLine: one argument is the line; several are quoted words', () => {
  const cases: [string[], PreparedLine][] = [
    [['whoami'], { line: 'whoami', scope: 'whoami', path: 'whoami', repeatable: true }],
    [
      ['ssh-key list'],
      { line: 'ssh-key list', scope: 'ssh-key list', path: 'ssh-key list', repeatable: true },
    ],
    [
      ['ssh-key', 'list'],
      { line: 'ssh-key list', scope: 'ssh-key list', path: 'ssh-key list', repeatable: true },
    ],
    [
      ["comment web 'hi there'"],
      { line: "comment web 'hi there'", scope: 'comment', path: 'comment', repeatable: false },
    ],
    [
      ['comment', 'web', 'hi there'],
      { line: "comment web 'hi there'", scope: 'comment', path: 'comment', repeatable: false },
    ],
    [['ls', '-l'], { line: 'ls -l', scope: 'ls', path: 'ls', repeatable: true }],
    [
      ['ssh-key generate-api-key --cmds ls,whoami --cmds=ssh-key'],
      {
        line: 'ssh-key generate-api-key --cmds ls,whoami --cmds=ssh-key',
        scope: 'ssh-key generate-api-key',
        path: 'ssh-key generate-api-key',
        repeatable: false,
        grants: { cmds: ['ls', 'whoami', 'ssh-key'], lifetimeSeconds: 30 * 86400 },
      },
    ],
    [
      ['ssh-key', 'generate-api-key', '--exp', '30d'],
      {
        line: 'ssh-key generate-api-key --exp 30d',
        scope: 'ssh-key generate-api-key',
        path: 'ssh-key generate-api-key',
        repeatable: false,
        grants: { cmds: DEFAULT_CMDS, lifetimeSeconds: 30 * 86400 },
      },
    ],
    // The request token lives as long as the key asked for (SPEC §3: never past its own exp).
    [
      ['ssh-key generate-api-key --exp never --exp=7d --cmds ls'],
      {
        line: 'ssh-key generate-api-key --exp never --exp=7d --cmds ls',
        scope: 'ssh-key generate-api-key',
        path: 'ssh-key generate-api-key',
        repeatable: false,
        grants: { cmds: ['ls'], lifetimeSeconds: 7 * 86400 },
      },
    ],
    [
      ['ssh-key', 'generate-api-key', '--exp', 'never'],
      {
        line: 'ssh-key generate-api-key --exp never',
        scope: 'ssh-key generate-api-key',
        path: 'ssh-key generate-api-key',
        repeatable: false,
        grants: { cmds: DEFAULT_CMDS, lifetimeSeconds: null },
      },
    ],
    [
      ['team', 'add', 'a@b.c'],
      { line: 'team add a@b.c', scope: 'team add', path: 'team add', repeatable: false },
    ],
    [
      ['team members'],
      { line: 'team members', scope: 'team members', path: 'team members', repeatable: true },
    ],
    [['new', '--help'], { line: 'new --help', scope: 'new', path: 'new', repeatable: true }],
    [
      ['new', '--', '--help'],
      { line: 'new -- --help', scope: 'new', path: 'new', repeatable: false },
    ],
    [
      ['ssh web uname -a'],
      { line: 'ssh web uname -a', scope: 'ssh web', path: 'ssh', repeatable: false },
    ],
    [
      ['ssh web ls --help'],
      { line: 'ssh web ls --help', scope: 'ssh web', path: 'ssh', repeatable: false },
    ],
    [['ssh --help'], { line: 'ssh --help', scope: 'ssh', path: 'ssh', repeatable: true }],
    // A group's help needs `help`, as `help ssh-key` does (the dispatcher's rule).
    [
      ['ssh-key --help'],
      { line: 'ssh-key --help', scope: 'help', path: undefined, repeatable: true },
    ],
    [
      ['integrations', '--help'],
      { line: 'integrations --help', scope: 'help', path: undefined, repeatable: true },
    ],
    [
      ['ssh-key', '--', '--help'],
      { line: 'ssh-key -- --help', scope: 'ssh-key', path: undefined, repeatable: false },
    ],
    [
      ['frobnicate now'],
      { line: 'frobnicate now', scope: 'frobnicate', path: undefined, repeatable: false },
    ],
    [["'whoami'"], { line: "'whoami'", scope: undefined, path: undefined, repeatable: false }],
    [['rm', 'a', 'b'], { line: 'rm a b', scope: 'rm', path: 'rm', repeatable: false }],
  ];
  for (const [args, prepared] of cases) {
    assert.deepEqual(prepareRunLine(args), prepared, JSON.stringify(args));
  }
});

test('prepareRunLine: an empty line is a usage error', () => {
  for (const args of [[''], ['  \t\n']]) {
    assert.throws(
      () => prepareRunLine(args),
      (err: unknown) =>
        err instanceof ExectlError &&
        err.code === 'usage' &&
        err.message === 'the command line is empty' &&
        err.hint === 'give a command, e.g. exectl run whoami',
    );
  }
});

test('every catalogue command: its own path is its scope; only non-mutating ones repeat', () => {
  for (const entry of COMMAND_CATALOG) {
    const prepared = prepareRunLine([entry.path]);
    assert.equal(prepared.path, entry.path);
    assert.equal(prepared.scope, entry.path);
    assert.equal(prepared.repeatable, !entry.mutates, entry.path);
  }
});

test('leadingPlainWords: stops at the first quoted or escaped word', () => {
  const cases: [string, string[]][] = [
    ['ssh-key list', ['ssh-key', 'list']],
    ['  ls\t-l \n x ', ['ls', '-l', 'x']],
    ["comment web 'a b' c", ['comment', 'web']],
    ['tag web "x"', ['tag', 'web']],
    ['a\\ b', []],
    ['', []],
  ];
  for (const [line, words] of cases) assert.deepEqual(leadingPlainWords(line), words, line);
});

test('property: the plain leading words are a prefix of what the service lexes', (t) => {
  const share = new BranchShare();
  const word = fc.string({
    unit: fc.constantFrom('a', 'b', '-', ' ', "'", '"', '\\', '\t', 'x'),
    maxLength: 20,
  });
  fc.assert(
    fc.property(word, (line) => {
      let lexed: string[];
      try {
        lexed = lexCommandLine(line);
      } catch {
        return share.refused(); // the service answers 400 for this line: nothing to agree on
      }
      share.accepted();
      const plain = leadingPlainWords(line);
      assert.deepEqual(lexed.slice(0, plain.length), plain);
    }),
    { numRuns: 2000 },
  );
  share.assertFloor((message) => t.diagnostic(message));
});

test('browser asks with every command, for as long as a dashboard session lasts (SPEC §11)', () => {
  const prepared = prepareRunLine(['browser']);
  assert.equal(prepared.scope, 'browser');
  assert.deepEqual(prepared.grants, {
    cmds: COMMAND_CATALOG.map((entry) => entry.path),
    lifetimeSeconds: 12 * 3600,
  });
});
