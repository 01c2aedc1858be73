// The views of src/text-views/, one renderer for SSH and `exectl run`: a table of answers and
// the exact text each command shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readableText, textViewFor } from '../../../src/text-views/index.js';

const VM = {
  vm_name: 'web',
  emoji: '🦦',
  status: 'running',
  tags: ['blue', 'prod'],
  comment: 'api',
  default_port: 8080,
  https_url: 'https://web.example',
  ssh_dest: null,
  ssh_host: null,
  ssh_port: null,
  ssh_user: null,
  created_at: '2026-01-01T00:00:00Z',
};

/** [command path, answer, flags given, the text]. */
const VIEWS: readonly [string, unknown, string[], string][] = [
  [
    'ls',
    { vms: [VM] },
    [],
    'NAME    STATUS   TAGS       URL\n🦦 web  running  blue,prod  https://web.example\n',
  ],
  [
    'ls',
    { vms: [VM] },
    ['long'],
    'NAME    STATUS   TAGS       URL                  COMMENT  PORT  SSH  REGION  CREATED\n' +
      '🦦 web  running  blue,prod  https://web.example  api      8080  -    -       2026-01-01T00:00:00Z\n',
  ],
  ['ls', { vms: [] }, [], 'no vms\n'],
  [
    'new',
    VM,
    [],
    'vm:     🦦 web\nstatus: running\ntags:   blue,prod\nport:   8080\n' +
      'url:    https://web.example\nssh:    -\n',
  ],
  [
    'rm',
    { deleted: ['a'], failed: [{ vm_name: 'b', error: 'vm "b" not found' }] },
    [],
    'deleted: a\nVM  ERROR\nb   vm "b" not found\n',
  ],
  ['comment', { vm_name: 'web', comment: '' }, [], 'web: comment cleared\n'],
  ['tag', { vm_name: 'web', tags: [] }, [], 'web: -\n'],
  ['pause', { vm_name: 'web', status: 'paused' }, [], 'web is paused\n'],
  [
    'stat',
    {
      vm_name: 'web',
      status: 'running',
      created_at: 'c',
      booted_at: null,
      limits: { cpus: 1, memory_bytes: 2 ** 29, pids: 100, disk_bytes: null },
      usage: { memory_bytes: 2 ** 20, pids: 3, disk_bytes: null, cpu_seconds: 0.5 },
      setup: { status: 'done', last_line: null },
    },
    [],
    'vm:      web (running)\ncreated: c\nbooted:  -\nsetup:   done\ncpus:    1 (used 0.5 s)\n' +
      'memory:  1 MiB of 512 MiB\npids:    3 of 100\ndisk:    - of -\n',
  ],
  [
    'ssh-key list',
    {
      ssh_keys: [
        { name: 'a', fingerprint: 'SHA256:x', added_at: 't', last_used_at: null, current: true },
        {
          name: 'ci',
          fingerprint: 'SHA256:y',
          added_at: 't',
          last_used_at: 'u',
          current: false,
          tag: 'ci',
        },
      ],
    },
    [],
    '   NAME  FINGERPRINT  ADDED  LAST USED  TAG\n' +
      '*  a     SHA256:x     t      -          -\n' +
      '   ci    SHA256:y     t      u          ci\n',
  ],
  ['team members', { members: [] }, [], 'no members\n'],
  ['share show', { shares: [] }, [], 'no vms\n'],
  [
    'integrations add',
    {
      name: 'me',
      type: 'reflection',
      comment: '',
      target: null,
      attachments: [],
      header_names: [],
      fields: ['email'],
    },
    [],
    'integration: me\ntype:        reflection\ntarget:      -\nattached:    -\n' +
      'headers:     -\nfields:      email\ncomment:     -\n',
  ],
  ['svc0-to-svc1', { token: 'svc1.abc' }, [], 'svc1.abc\n'],
  // Control characters in a view's text are escaped, but for its newlines and tabs.
  ['comment', { vm_name: 'web', comment: 'a\u001b[31m\nb' }, [], 'web: a\\u001b[31m\nb\n'],
];

test('each command path shows its answer as its view says', () => {
  for (const [path, data, flags, text] of VIEWS) {
    const view = textViewFor(path);
    assert.notEqual(view, undefined, path);
    assert.equal(readableText(data, view, new Set(flags)), text, `${path} ${flags.join(' ')}`);
  }
});

test('a path without a view (ssh: a stream) gets the generic text', () => {
  assert.equal(textViewFor('ssh'), undefined);
  assert.equal(readableText({ a: 1 }, textViewFor('ssh')), 'a: 1\n');
});

test('a view reads only flags it declares, each with a short letter', () => {
  assert.deepEqual(textViewFor('ls')?.flags, [{ name: 'long', short: 'l' }]);
  assert.deepEqual(textViewFor('whoami')?.flags, []);
});
