// Which text `exectl run` shows for an answer: the view of the line's command with the flags it
// reads, the help's for --help, the generic text for a failure's result; none for --json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerText } from '../../../../src/cli/exec/text.js';

const VM = {
  vm_name: 'web',
  emoji: '🦦',
  status: 'running',
  tags: [],
  comment: '',
  default_port: 8080,
  https_url: 'https://web.example',
  ssh_dest: null,
  ssh_host: null,
  ssh_port: null,
  ssh_user: null,
  created_at: 't',
};
const LS = { vms: [VM] };
const SHORT = 'NAME    STATUS   TAGS  URL\n🦦 web  running  -     https://web.example\n';
const LONG =
  'NAME    STATUS   TAGS  URL                  COMMENT  PORT  SSH  REGION  CREATED\n' +
  '🦦 web  running  -     https://web.example  -        8080  -    -       t\n';
const HELP = {
  name: 'ssh-key',
  usage: 'ssh-key <subcommand>',
  description: 'Manage your SSH keys',
  flags: [],
  examples: [],
  subcommands: [{ name: 'ssh-key list', usage: 'ssh-key list', description: 'List them' }],
};

/** [command line, answer, failed, text shown]. */
const CASES: readonly [string, unknown, boolean, string | undefined][] = [
  ['ls', LS, false, SHORT],
  ['ls -l', LS, false, LONG],
  ['ls --long web', LS, false, LONG],
  ["ls 'web*' -l", LS, false, LONG],
  // After `--`, `-l` is the pattern, not the flag.
  ['ls -- -l', LS, false, SHORT],
  ['ls --json', LS, false, undefined],
  [
    'ssh-key --help',
    HELP,
    false,
    'usage: ssh-key <subcommand>\n\nManage your SSH keys\n\nsubcommands:\n  ssh-key list  List them\n',
  ],
  // A failure's result is the generic text, as SSH shows it.
  [
    'rm a b',
    { deleted: ['a'], failed: [{ vm_name: 'b', error: 'not found' }] },
    true,
    'deleted: a\nfailed:\n  VM_NAME  ERROR\n  b        not found\n',
  ],
  // An answer of another shape than the view knows (another server version): generic text.
  ['whoami', { ok: true }, false, 'ok: true\n'],
  // A command the client does not know: generic text.
  ['frob', { a: [1, 2] }, false, 'a: 1, 2\n'],
];

test('answerText picks the view, the flags and the form SSH would', () => {
  for (const [line, data, failed, text] of CASES) {
    assert.equal(answerText(line, data, failed), text, line);
  }
});
