import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExectlError } from '../../../../src/errors.js';
import { authorize, isAllowed } from '../../../../src/service/dispatch/authorize.js';
import { DEFAULT_CMDS } from '../../../../src/token/permissions.js';

const CASES: [cmds: readonly string[] | null, path: string, args: string[], allowed: boolean][] = [
  // The defaults of SPEC §1.3.
  [DEFAULT_CMDS, 'help', [], true],
  [DEFAULT_CMDS, 'help', ['ssh-key', 'add'], true],
  [DEFAULT_CMDS, 'ls', ['web*'], true],
  [DEFAULT_CMDS, 'new', [], true],
  [DEFAULT_CMDS, 'whoami', [], true],
  [DEFAULT_CMDS, 'ssh-key list', [], true],
  [DEFAULT_CMDS, 'share show', ['web'], true],
  [DEFAULT_CMDS, 'svc0-to-svc1', ['svc0.x.y'], true],
  [DEFAULT_CMDS, 'team', [], true],
  [DEFAULT_CMDS, 'team members', [], true],
  [DEFAULT_CMDS, 'rm', ['web'], false],
  [DEFAULT_CMDS, 'ssh-key add', ['ssh-ed25519 AAAA'], false],
  [DEFAULT_CMDS, 'ssh', ['web', 'ls'], false],
  [DEFAULT_CMDS, 'team add', ['bob@example.com'], false],
  // A parent grants no subcommand, and a subcommand grants no parent.
  [['ssh-key'], 'ssh-key list', [], false],
  [['ssh-key'], 'ssh-key', [], true],
  [['team members'], 'team', [], false],
  [['share'], 'share show', [], false],
  // Flags and arguments never matter.
  [['ls'], 'ls', ['-l', 'web*'], true],
  [['rm'], 'rm', ['a', 'b', 'c'], true],
  [['rm web'], 'rm', ['web'], false],
  // Empty list: nothing, not even help.
  [[], 'help', [], false],
  [[], 'whoami', [], false],
  // ssh: any VM, or one VM only.
  [['ssh'], 'ssh', ['web', 'ls'], true],
  [['ssh'], 'ssh', ['db', 'ls'], true],
  [['ssh web'], 'ssh', ['web', 'ls', '-l'], true],
  [['ssh web'], 'ssh', ['db', 'ls'], false],
  [['ssh web'], 'ssh', ['web2', 'ls'], false],
  [['ssh web'], 'ssh', [], false],
  [['ssh web', 'ssh db'], 'ssh', ['db', 'ls'], true],
  // Only ssh is VM-scoped: `rm web` is no partial grant of rm.
  [['ls web'], 'ls', ['web'], false],
  // Exact comparison: no case folding, no whitespace normalising.
  [['LS'], 'ls', [], false],
  [['ssh-key  list'], 'ssh-key list', [], false],
  [[' ls'], 'ls', [], false],
  // null (SSH sessions): everything.
  [null, 'rm', ['web'], true],
  [null, 'ssh', ['web', 'ls'], true],
];

test('isAllowed follows the cmds rules of SPEC §1.3', () => {
  for (const [cmds, path, args, allowed] of CASES) {
    assert.equal(
      isAllowed(cmds, path, args),
      allowed,
      `${JSON.stringify(cmds)} ${path} ${JSON.stringify(args)}`,
    );
  }
});

test('authorize throws 403 "command not allowed: <path>" exactly when isAllowed is false', () => {
  for (const [cmds, path, args, allowed] of CASES) {
    if (allowed) {
      authorize(cmds, path, args);
      continue;
    }
    assert.throws(
      () => authorize(cmds, path, args),
      (err: unknown) => {
        assert.ok(err instanceof ExectlError);
        assert.equal(err.code, 'forbidden');
        assert.equal(err.status, 403);
        assert.equal(err.message, `command not allowed: ${path}`);
        return true;
      },
    );
  }
});

test('isAllowed: any one of a command’s names grants it (SPEC §12 exe0-to-exe1)', () => {
  const names = ['svc0-to-svc1', 'exe0-to-exe1'];
  const rows: [string[], string, boolean][] = [
    [['exe0-to-exe1'], 'svc0-to-svc1', true],
    [['svc0-to-svc1'], 'exe0-to-exe1', true],
    [['exe0-to-exe1'], 'exe0-to-exe1', true],
    [['whoami'], 'exe0-to-exe1', false],
    [[], 'exe0-to-exe1', false],
    // A name only counts for the command it names.
    [['exe0-to-exe1'], 'whoami', false],
  ];
  for (const [cmds, path, allowed] of rows) {
    const of = path === 'whoami' ? ['whoami'] : names;
    assert.equal(isAllowed(cmds, path, [], of), allowed, `${JSON.stringify(cmds)} ${path}`);
  }
});
