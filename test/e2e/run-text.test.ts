// `exectl run` shows the SSH front end's readable text on a terminal (SPEC §8), from the one
// renderer in src/text-views/: compared byte for byte with the real SSH front end (OpenSSH
// client) and with the renderer itself, on a real pty (`script`) against a real service.
// --json gives the JSON there; piped, stdout is the body /exec sent, byte for byte.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { homeWithOwnerKey, startTestService, type TestService } from '../helpers/service.js';
import { run } from '../helpers/keys.js';
import { readableText, textViewFor } from '../../src/text-views/index.js';
import { displayWidth } from '../../src/text-views/width.js';
import { assertBuilt, exectl } from './harness.js';
import { onTerminal, shown } from './pty.js';

let svc: TestService;
let home: string;

before(async () => {
  assertBuilt();
  svc = await startTestService({ sshListen: { host: '127.0.0.1', port: 0 } });
  home = await homeWithOwnerKey(svc);
  const made = await piped(['new', '--name', 'web', '--tag', 'blue']);
  assert.equal(made.code, 0, made.stderr);
  // Compare only once the VM has settled: its status is part of every listing.
  for (let i = 0; i < 120 && (await listed()).vms[0]?.status !== 'running'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.equal((await listed()).vms[0]?.status, 'running');
});
after(() => svc.stop());

const piped = (args: readonly string[]) => exectl(['--url', svc.url, 'run', ...args], { home });

async function listed(): Promise<{ vms: { status: string }[] }> {
  return JSON.parse((await piped(['ls'])).stdout) as { vms: { status: string }[] };
}

/** What the SSH front end prints for `line` (no pty, so no \r), with the owner's key. */
async function overSsh(line: string): Promise<string> {
  const port = svc.service.endpoints.ssh!.port;
  const result = await run('ssh', [
    ...['-F', '/dev/null', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no'],
    ...['-o', 'UserKnownHostsFile=/dev/null', '-o', 'IdentitiesOnly=yes', '-o', 'LogLevel=ERROR'],
    ...['-i', svc.owner.key.path, '-p', String(port), '127.0.0.1', line],
  ]);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

/**
 * The screen of `exectl run ARGS` on a pty of `cols` columns: wide by default, so that no table
 * is cut and the text is the SSH front end's without a pty, byte for byte.
 */
async function onTty(args: readonly string[], cols = 400): Promise<string> {
  const run = ['--url', svc.url, '--no-color', 'run', ...args];
  const { code, screen } = await onTerminal(home, run, {}, { cols });
  assert.equal(code, 0, screen);
  return screen;
}

test('on a terminal, run shows exactly what the SSH front end shows', async () => {
  // Lines whose answer does not change between two calls (not `ssh-key list`: last used).
  for (const line of ['ls', 'ls -l', 'whoami', 'team', 'share show', 'ls --help', 'help']) {
    const ssh = await overSsh(line);
    assert.ok(ssh.length > 0, line);
    assert.equal(await onTty([line]), shown(ssh), line);
    // Several words (quoted by exectl) are the same command line; `--` keeps `--help` the
    // command's, not exectl's.
    assert.equal(await onTty(['--', ...line.split(' ')]), shown(ssh), `${line}, as words`);
  }
});

test('a group help (ssh-key --help) is the help text too', async () => {
  // `<group> --help` needs the `help` command, which the request token then names.
  const ssh = await overSsh('ssh-key --help');
  assert.match(ssh, /^usage: ssh-key <subcommand>\n/);
  assert.equal(await onTty(['ssh-key --help']), shown(ssh));
  assert.equal(await onTty(['--', 'ssh-key', '--help']), shown(ssh));
});

test('the text is the shared renderer view of the answer; whoami as a literal table', async () => {
  const answer = JSON.parse((await piped(['whoami'])).stdout) as {
    user_id: string;
    ssh_keys: { fingerprint: string }[];
  };
  const fingerprint = answer.ssh_keys[0]!.fingerprint;
  const expected = [
    'email:   owner@example.com',
    `user id: ${answer.user_id}`,
    'region:  local (Local)',
    '',
    `   NAME     FINGERPRINT`,
    `*  default  ${fingerprint}`,
    '',
  ].join('\n');
  assert.equal(readableText(answer, textViewFor('whoami')), expected);
  assert.equal(await onTty(['whoami']), shown(expected));

  const ls = JSON.parse((await piped(['ls'])).stdout) as unknown;
  const long = readableText(ls, textViewFor('ls'), new Set(['long']));
  assert.match(
    long,
    /^NAME +STATUS +TAGS +URL +COMMENT +PORT +SSH +REGION +CREATED\n. web +running +blue /u,
  );
  assert.equal(await onTty(['ls', '-l']), shown(long));
  assert.equal(await onTty(['ls']), shown(readableText(ls, textViewFor('ls'))));
});

test('at 80 columns, ls -l and help fit the terminal: cut cells, no line wrapped', async () => {
  // A comment long enough that `ls -l` cannot fit 80 columns (issue 28: it wrapped mid-word).
  const long = 'a comment long enough to push the table well past eighty columns';
  assert.equal((await piped(['comment', 'web', long])).code, 0);
  const ls = JSON.parse((await piped(['ls'])).stdout) as unknown;
  const help = JSON.parse((await piped(['--json', 'help'])).stdout) as unknown;
  for (const [args, expected] of [
    [['ls', '-l'], readableText(ls, textViewFor('ls'), new Set(['long']), 80)],
    [['help'], readableText(help, textViewFor('help'), new Set(), 80)],
  ] as const) {
    const screen = await onTty(args, 80);
    assert.equal(screen, shown(expected), args.join(' '));
    for (const line of screen.split('\r\n')) {
      assert.ok(displayWidth(line) <= 80, `${args.join(' ')}: ${line}`);
    }
    // Piped, the same answer is whole: nothing is cut where no terminal is.
    assert.ok(!(await piped(['--raw', ...args])).stdout.includes('…'));
  }
  assert.match(await onTty(['ls', '-l'], 80), /…/);
  assert.equal((await piped(['comment', 'web', ''])).code, 0);
});

test('--json on a terminal: the JSON of the answer, indented', async () => {
  for (const line of ['whoami', 'ls']) {
    const answer = JSON.parse((await piped([line])).stdout) as unknown;
    const screen = await onTty(['--json', line]);
    assert.equal(screen, shown(`${JSON.stringify(answer, null, 2)}\n`), line);
  }
});

test('piped, stdout is the body /exec sent, byte for byte, with or without --json', async () => {
  const token = await svc.token('{"cmds":["whoami","ls"]}');
  for (const line of ['whoami', 'ls -l']) {
    const response = await fetch(`${svc.url}/exec`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: line,
    });
    assert.equal(response.status, 200);
    const body = await response.text();
    assert.equal((await piped([line])).stdout, body, line);
    assert.equal((await piped(['--json', line])).stdout, body, `--json ${line}`);
  }
});
