// A long `exectl run new`: the spinner says what it waits for, and an answer `creating` (the
// setup script still running, SPEC §4) is followed on stderr by the commands that follow it
// (issue 28). The service's command deadline is shortened so that `new` answers `creating`
// after 10 s rather than 25 s.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { spinnerText } from '../../src/cli/commands/run/progress.js';
import { prepareRunLine } from '../../src/command-line.js';
import { homeWithOwnerKey, startTestService, type TestService } from '../helpers/service.js';
import { assertBuilt, exectl } from './harness.js';

let svc: TestService;
let home: string;

before(async () => {
  assertBuilt();
  // new waits 5/6 of the deadline for a setup script: 10 s here, the 2 s left for the answer;
  // making the VM (well under a second) must end within the 12 s.
  svc = await startTestService({ commandDeadlineMs: 12_000 });
  home = await homeWithOwnerKey(svc);
});
after(() => svc.stop());

test('the spinner names what each command waits for', () => {
  const table: [args: string[], text: string][] = [
    [['new', '--setup-script', 'sleep 35'], 'new: waiting for the setup script'],
    [['new --name web --setup-script="apt-get update"'], 'new: waiting for the setup script'],
    [['new', '--name', 'web'], 'new: waiting for the new VM'],
    [['cp', 'web', 'web2'], 'cp: waiting for the copy'],
    [['ssh', 'web', 'make'], 'ssh: waiting for the command in the VM'],
    [['ls'], 'ls: waiting for the server'],
    [['ssh-key', 'list'], 'ssh-key list: waiting for the server'],
    [['frobnicate'], 'frobnicate: waiting for the server'],
  ];
  for (const [args, text] of table)
    assert.equal(spinnerText(prepareRunLine(args)), text, `${args}`);
});

test('new answering creating: stdout keeps the JSON, stderr says how to follow it', async () => {
  const r = await exectl(
    ['--url', svc.url, 'run', 'new', '--name', 'slow', '--setup-script', 'sleep 120'],
    { home },
  );
  assert.equal(r.code, 0, r.stderr);
  const answer = JSON.parse(r.stdout) as { vm_name: string; status: string };
  assert.deepEqual([answer.vm_name, answer.status], ['slow', 'creating']);
  assert.equal(
    r.stderr,
    'exectl: vm "slow" is still running its setup script — watch it with ' +
      '`exectl run stat slow`; read its log with ' +
      '`exectl ssh slow cat /var/log/exectl-setup.log`\n',
  );
  // -q: results and errors only.
  const quiet = await exectl(
    ['--url', svc.url, '-q', 'run', 'new', '--name', 'slow2', '--setup-script', 'sleep 120'],
    { home },
  );
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(quiet.stderr, '');
  assert.equal((JSON.parse(quiet.stdout) as { status: string }).status, 'creating');
});

test('with the SSH listener on, the note follows the log over SSH, which has no time limit', async () => {
  const on = await startTestService({
    commandDeadlineMs: 12_000,
    sshListen: { host: '127.0.0.1', port: 0 },
  });
  try {
    const r = await exectl(
      ['--url', on.url, 'run', 'new', '--name', 'slow', '--setup-script', 'sleep 120'],
      { home: await homeWithOwnerKey(on) },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stderr,
      'exectl: vm "slow" is still running its setup script — watch it with ' +
        '`exectl run stat slow`; follow its log with ' +
        `\`ssh -p ${on.service.endpoints.ssh?.port} vm+slow@localhost tail -f /var/log/exectl-setup.log\` (no time limit)\n`,
    );
  } finally {
    await on.stop();
  }
});

test('new answering running: no note', async () => {
  const r = await exectl(['--url', svc.url, 'run', 'new', '--name', 'quick'], { home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal((JSON.parse(r.stdout) as { status: string }).status, 'running');
  assert.equal(r.stderr, '');
});
