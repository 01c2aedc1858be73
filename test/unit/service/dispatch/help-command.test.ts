import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dispatch } from '../../../../src/service/dispatch/dispatcher.js';
import { renderJson } from '../../../../src/service/dispatch/render.js';
import { helpView, readableText } from '../../../../src/text-views/index.js';
import { principal, testRegistry } from './fixtures.js';

async function help(line: string): Promise<unknown> {
  const { output } = await dispatch(
    testRegistry(),
    line,
    principal(['help']),
    { log: [] },
    {
      deadlineMs: 30_000,
      requestId: 'req-help',
    },
  );
  assert.equal(output.kind, 'json');
  return output.data;
}

const summary = (name: string, usage: string, description: string) => ({
  name,
  usage,
  description,
});

const TOP = [
  summary('help', 'help [all | <command>...]', 'List the commands, or show how to use one'),
  summary('ls', 'ls [-l] [pattern]', 'List your VMs'),
  summary('new', 'new [--name N] [--tag T]... [--comment C] [--size S]', 'Create a VM'),
  summary('rm', 'rm <vm>...', 'Delete VMs'),
  summary('rename', 'rename <vm> <new>', 'Rename a VM'),
  summary('ssh', 'ssh <vm> <command...>', 'Run a command in a VM'),
  summary('whoami', 'whoami', 'Show who you are'),
  summary('ssh-key', 'ssh-key <subcommand>', 'Manage your SSH keys'),
  summary('team', 'team', 'Show your team'),
  summary('wait', 'wait', 'Wait for the deadline'),
  summary('boom', 'boom', 'Fail unexpectedly'),
];

test('help lists the top-level commands and groups', async () => {
  assert.deepEqual(await help('help'), { commands: TOP });
  assert.deepEqual(await help('help --json'), { commands: TOP });
});

test('help all lists every command and subcommand, parents first', async () => {
  const all = [
    ...TOP.slice(0, 8),
    summary('ssh-key list', 'ssh-key list', 'List your SSH keys'),
    summary('ssh-key add', 'ssh-key add [--name N] <public-key>', 'Register a public key'),
    TOP[8],
    summary('team members', 'team members', 'List the members of your team'),
    ...TOP.slice(9),
  ];
  assert.deepEqual(await help('help all'), { commands: all });
});

test('help <path> is the command help; unknown paths are 404', async () => {
  assert.deepEqual(await help('help ssh-key add'), {
    name: 'ssh-key add',
    usage: 'ssh-key add [--name N] <public-key>',
    description: 'Register a public key',
    flags: [{ name: '--name', type: 'string', default: null, description: 'A name for the key' }],
    examples: [],
    subcommands: [],
  });
  for (const [line, message] of [
    ['help frob', 'unknown command: frob'],
    ['help ssh-key frob', 'unknown command: ssh-key frob'],
    ['help all extra', 'unknown command: all extra'],
  ]) {
    await assert.rejects(help(line!), { name: 'ExectlError', message });
  }
  // help takes no flags of its own: a flag after it is the usual 422.
  await assert.rejects(help('help ls -l'), { name: 'ExectlError', message: 'unknown flag "-l"' });
});

test('help renders as readable text for SSH', async () => {
  const listing = await help('help');
  assert.equal(
    readableText(listing, helpView).split('\n').slice(0, 3).join('\n'),
    [
      'help [all | <command>...]                             List the commands, or show how to use one',
      'ls [-l] [pattern]                                     List your VMs',
      'new [--name N] [--tag T]... [--comment C] [--size S]  Create a VM',
    ].join('\n'),
  );
  const one = await help('help ls');
  assert.equal(
    readableText(one, helpView),
    [
      'usage: ls [-l] [pattern]',
      '',
      'List your VMs',
      '',
      'flags:',
      '  --long  Show every field',
      '',
      'examples:',
      '  ls',
      '  ls -l "web*"',
      '',
    ].join('\n'),
  );
  assert.equal(
    readableText(await help('help new'), helpView).split('\n')[8],
    '  --size     Machine size (default: small)',
  );
  assert.equal(renderJson(one).endsWith('"subcommands":[]}\n'), true);
});
