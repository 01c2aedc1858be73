// What `exectl __complete` answers, word by word, from exectl's real commander tree and a
// server listing as `help all` and `ls` give them (SPEC §3, §8).
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { before, test } from 'node:test';
import {
  completionAnswer,
  formatAnswer,
  type CompletionSources,
} from '../../../../../src/cli/commands/completion/answer.js';
import {
  completionModel,
  type CompletionModel,
} from '../../../../../src/cli/commands/completion/model.js';
import type { ServerCommand } from '../../../../../src/cli/commands/completion/server-line.js';
import { wholeProgram } from '../../../../../src/cli/program.js';

/** Part of a real `help all` answer: usages as the service declares them. */
const HELP_ALL: ServerCommand[] = [
  { name: 'help', usage: 'help [all | <command>...]', description: 'List the commands' },
  { name: 'ls', usage: 'ls [-l] [pattern]', description: 'List VMs' },
  { name: 'rm', usage: 'rm <vm>...', description: 'Delete VMs' },
  { name: 'ssh', usage: 'ssh <vm> [command...]', description: 'Run a command in a VM' },
  { name: 'ssh-key', usage: 'ssh-key <subcommand>', description: 'Manage SSH keys' },
  { name: 'ssh-key list', usage: 'ssh-key list', description: 'List keys' },
  { name: 'ssh-key add', usage: 'ssh-key add [--name N] <public-key>', description: 'Add a key' },
  {
    name: 'ssh-key generate-api-key',
    usage: 'ssh-key generate-api-key [--label L] [--vm V] [--cmds a,b] [--exp 30d|never]',
    description: 'Make an API key',
  },
  { name: 'tag', usage: 'tag [-d] <vm> <tag>...', description: 'Tag a VM' },
];

const VMS = [
  { name: 'web', status: 'running' },
  { name: 'worker', status: 'stopped' },
];

let model: CompletionModel;
before(async () => {
  const io = new PassThrough();
  model = completionModel(await wholeProgram({ stdin: io, stdout: io, stderr: io, env: {} }));
});

/** Sources that know HELP_ALL, VMS and two profiles, and record which were asked. */
function sources(asked: string[], up = true): CompletionSources {
  return {
    serverCommands: async () => (asked.push('help all'), up ? HELP_ALL : undefined),
    vms: async () => (asked.push('ls'), up ? VMS : undefined),
    profiles: () => ['prod', 'staging'],
  };
}

/** The words offered after `line` (its last word being typed), or 'files'. */
async function offered(line: string[], up = true): Promise<string[] | 'files'> {
  const answer = await completionAnswer(model, line, () => sources([], up));
  return answer.files ? 'files' : answer.candidates.map((c) => c.word);
}

const TABLE: [string[], string[] | 'files'][] = [
  // exectl's own commands, `help` among them.
  [['r'], ['reflect', 'run']],
  [['he'], ['help']],
  [
    ['help', 's'],
    ['serve', 'ssh', 'ssh-config'],
  ],
  [
    ['completion', ''],
    ['bash', 'zsh', 'fish'],
  ],
  [
    ['serve', 'accounts', ''],
    ['add', 'list', 'remove'],
  ],
  [['mint', '--s'], ['--svc1']],
  [['--url', 'http://x', 'ssh', '--t'], ['--token']],
  // Fixed value sets, and files only where a path goes.
  [
    ['serve', '--runtime', ''],
    ['auto', 'bwrap', 'process'],
  ],
  [['serve', '--log-level', 'w'], ['warn']],
  [
    ['--profile', ''],
    ['prod', 'staging'],
  ],
  // `profile use|remove`: a profile of the config file, then nothing.
  [
    ['profile', ''],
    ['add', 'list', 'remove', 'use'],
  ],
  [
    ['profile', 'use', ''],
    ['prod', 'staging'],
  ],
  [['profile', 'remove', 'st'], ['staging']],
  [['profile', 'use', 'prod', ''], []],
  [['mint', '--key', 'id'], 'files'],
  [['inspect', ''], 'files'],
  [['mint', '--exp', ''], []],
  // `ssh`: the VM, then the program's words (nothing to offer).
  [
    ['ssh', ''],
    ['web', 'worker'],
  ],
  [['ssh', 'we'], ['web']],
  [['ssh', '--key', 'k', 'wo'], ['worker']],
  [
    ['ssh', '--', ''],
    ['web', 'worker'],
  ],
  [['ssh', 'web', ''], []],
  [['ssh', 'web', '-'], []],
  // `run`: the server's paths word by word, their flags, VMs where the usage has <vm>.
  [['run', 'ssh-k'], ['ssh-key']],
  [
    ['run', 'ssh-key', ''],
    ['list', 'add', 'generate-api-key'],
  ],
  [
    ['run', 'ssh-key', 'add', '--'],
    ['--name', '--help', '--json'],
  ],
  [
    ['run', 'ssh-key', 'generate-api-key', '--vm', ''],
    ['web', 'worker'],
  ],
  [
    ['run', 'rm', 'web', 'w'],
    ['web', 'worker'],
  ],
  [['run', 'tag', '-d', 'web', ''], []],
  [
    ['run', 'ssh', 'w'],
    ['web', 'worker'],
  ],
  [['run', 'ssh', 'web', ''], []],
  [['run', 'help', 'ssh-key', 'l'], ['list']],
  [['run', 'help', 'a'], ['all']],
  [['run', '--json', 'l'], ['ls']],
  [['run', '--', 'l'], ['ls']],
  [['run', '--j'], ['--json']],
];

test('table: what is offered after the words typed so far', async () => {
  for (const [line, expected] of TABLE) {
    assert.deepEqual(await offered(line), expected, line.join(' '));
  }
});

test('server down: nothing where the server was needed, the rest as usual', async () => {
  assert.deepEqual(await offered(['ssh', ''], false), []);
  assert.deepEqual(await offered(['run', 'ssh-k'], false), []);
  assert.deepEqual(await offered(['run', 'rm', ''], false), []);
  assert.deepEqual(await offered(['serve', '--runtime', 'b'], false), ['bwrap']);
});

test('the server is asked only where its answer is needed', async () => {
  const cases: [string[], string[]][] = [
    [['ru'], []],
    [['serve', '--runtime', ''], []],
    [['ssh', ''], ['ls']],
    [['run', 'ssh-key', ''], ['help all']],
    [
      ['run', 'rm', ''],
      ['help all', 'ls'],
    ],
  ];
  for (const [line, expected] of cases) {
    const asked: string[] = [];
    await completionAnswer(model, line, () => sources(asked));
    assert.deepEqual(asked, expected, line.join(' '));
  }
});

test('--url and --profile typed on the line choose the server asked', async () => {
  const seen: unknown[] = [];
  await completionAnswer(model, ['--url', 'http://h:1', '--profile', 'p', 'ssh', ''], (g) => {
    seen.push(g);
    return sources([]);
  });
  assert.deepEqual(seen, [{ url: 'http://h:1', profile: 'p' }]);
});

test('the printed form: a mode line, then word<TAB>description lines', () => {
  assert.equal(formatAnswer({ files: true, candidates: [] }), 'files\n');
  assert.equal(
    formatAnswer({
      files: false,
      candidates: [
        { word: 'web', description: 'running' },
        { word: 'x', description: 'two\nlines\twith tab' },
      ],
    }),
    'words\nweb\trunning\nx\ttwo lines with tab\n',
  );
});

test('a server word with white space in it is never offered', async () => {
  const answer = await completionAnswer(model, ['ssh', ''], () => ({
    ...sources([]),
    vms: async () => [
      { name: 'ok', status: '' },
      { name: 'bad\nname', status: '' },
    ],
  }));
  assert.deepEqual(
    answer.candidates.map((c) => c.word),
    ['ok'],
  );
});
