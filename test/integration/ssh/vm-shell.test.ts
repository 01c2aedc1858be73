// `ssh <vm>` without a command: an interactive shell inside a real bwrap VM, through the real
// service's SSH front end, driven by the real OpenSSH client on a real pty. Refused where
// there is no terminal: over /exec and over SSH without a pty.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { run } from '../../helpers/keys.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { hostPidsWith, onlyHostSleeper, uniqueMarker } from '../vm/fixture.js';
import { SizedPtyClient } from './vm-shell-client.js';

const FAR = 4_000_000_000;
/** Short, so that a shell outliving it shows that no deadline applies to shells. */
const DEADLINE_MS = 3000;
const SIZE = { cols: 91, rows: 27 };
const REFUSAL = 'ssh vm1 needs a terminal: give a command, or use ssh -t';
/** The VM shell's prompt (bash on Debian: `root@vm1:~# `; a bare `# ` from sh). */
const VM_PROMPT = /(root@vm1:~)?# $/;

describe('interactive shell in a VM over SSH (bwrap)', () => {
  let svc: TestService;
  const clients: SizedPtyClient[] = [];
  const sshArgs = (command?: string) => sshArgsFor(svc, command);
  const client = (command?: string): SizedPtyClient => {
    const c = new SizedPtyClient(sshArgs(command), SIZE);
    clients.push(c);
    return c;
  };

  before(async () => {
    svc = await startTestService({
      runtime: 'bwrap',
      sshListen: { host: '127.0.0.1', port: 0 },
      commandDeadlineMs: DEADLINE_MS,
    });
    const made = await run('ssh', sshArgs('new --name vm1 --json'));
    assert.equal(made.code, 0, made.stderr);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.stop()));
  });
  after(() => svc?.stop());

  test('ssh -t host ssh vm1: a shell on a pty of the client’s size; exit 3 is the exit status', async () => {
    const c = client('ssh vm1');
    await c.waitFor(VM_PROMPT);
    assert.equal(await c.run('echo $((6*7))'), '42\r\n');
    assert.equal(await c.run('hostname'), 'vm1\r\n');
    assert.match(await c.run('tty'), /^\/dev\/pts\/\d+\r\n$/);
    assert.equal(await c.run('stty size'), '27 91\r\n');
    c.type('exit 3\r');
    assert.equal(await c.exitCode(), 3);
  });

  test('a window change reaches the shell: new size and SIGWINCH', async () => {
    const c = client('ssh vm1');
    await c.waitFor(VM_PROMPT);
    c.type(`sh -c 'trap "stty size" WINCH; echo waiting; while :; do sleep 0.05; done'\r`);
    await c.waitFor(/(?<!echo )waiting\r\n/);
    await c.resize(120, 40);
    // stty sets the columns and the rows one after the other: the first SIGWINCH may see only
    // the new width, the second sees both.
    await c.waitFor(/(?:^|\n)40 120\r\n/);
    c.type('\x03');
    await c.waitFor(VM_PROMPT);
    assert.equal(await c.run('stty size'), '40 120\r\n');
    c.type('exit\r');
    assert.equal(await c.exitCode(), 0);
  });

  test('in the REPL, ssh vm1 is a shell until it exits; Ctrl-C stays inside it', async () => {
    const c = client();
    await c.waitFor(/exectl> $/);
    c.type('ssh vm1\r');
    await c.waitFor(VM_PROMPT);
    c.type('sleep 300\r');
    await c.waitFor(/sleep 300\r\n/);
    c.type('\x03');
    await c.waitFor(/\^C/);
    assert.equal(await c.run('hostname'), 'vm1\r\n');
    // Longer than the command deadline: a shell has none.
    assert.equal(await c.run(`sleep ${(DEADLINE_MS / 1000) * 1.5}; echo survived`), 'survived\r\n');
    c.type('exit 5\r');
    await c.waitFor(/exectl> $/);
    c.type('whoami\r');
    await c.waitFor(/owner@example\.com[\s\S]*exectl> $/);
    c.type('exit\r');
    assert.equal(await c.exitCode(), 0);
    assert.match(svc.logs.join('\n'), / cmd="ssh" status=422 /);
  });

  test('a background job outlives the shell; a hung-up client ends its foreground job', async () => {
    const [background, foreground] = [uniqueMarker(), uniqueMarker()];
    const first = client('ssh vm1');
    await first.waitFor(VM_PROMPT);
    await first.run(`sleep ${background} > /dev/null 2>&1 & true`);
    first.type('exit\r');
    assert.equal(await first.exitCode(), 0);
    await onlyHostSleeper(background);

    const second = client('ssh vm1');
    await second.waitFor(VM_PROMPT);
    second.type(`sleep ${foreground}\r`);
    await waitUntil(async () => (await hostPidsWith(`sleep ${foreground}`)).length === 1);
    await second.stop();
    await waitUntil(async () => (await hostPidsWith(`sleep ${foreground}`)).length === 0);
    await onlyHostSleeper(background);

    const restarted = await run('ssh', sshArgs('restart vm1'));
    assert.equal(restarted.code, 0, restarted.stderr);
    assert.deepEqual(await hostPidsWith(`sleep ${background}`), []);
  });

  test('a flood of output: Ctrl-C still reaches the VM; a client hanging up mid-flood ends it', async () => {
    const c = client('ssh vm1');
    await c.waitFor(VM_PROMPT);
    c.type('yes flood-line\r');
    await c.waitFor(/flood-line\r\nflood-line\r\n/);
    c.type('\x03');
    assert.equal(await c.run('echo calm'), 'calm\r\n');
    c.type('yes flood-line\r');
    await c.waitFor(/flood-line\r\nflood-line\r\n/);
    await c.stop();
    await waitUntil(async () => (await hostPidsWith('yes flood-line')).length === 0);
    assert.equal(
      (await run('ssh', sshArgs('ssh vm1 echo still-serving'))).stdout,
      'still-serving\n',
    );
  });

  test('without a pty the shell is refused: ssh exec, ssh line mode, and POST /exec', async () => {
    const exec = await run('ssh', sshArgs('ssh vm1'));
    assert.deepEqual(
      { code: exec.code, stdout: exec.stdout, stderr: exec.stderr },
      { code: 1, stdout: '', stderr: `error: ${REFUSAL}\n` },
    );
    const lines = await run('ssh', ['-T', ...sshArgs()], { input: 'ssh vm1\n' });
    assert.deepEqual(
      { code: lines.code, stdout: lines.stdout, stderr: lines.stderr },
      { code: 1, stdout: '', stderr: `error: ${REFUSAL}\n` },
    );

    const token = await svc.token(`{"exp":${FAR},"cmds":["ssh vm1"]}`);
    const res = await request(`${svc.url}/exec`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: 'ssh vm1',
    });
    assert.equal(res.statusCode, 422);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(await res.body.text(), `${JSON.stringify({ error: REFUSAL })}\n`);
    // A VM that is not there is still the usual 422, not the refusal.
    const missing = await run('ssh', sshArgs('ssh nope'));
    assert.equal(missing.stderr, 'error: vm "nope" not found\n');
  });
});

describe('a server shutdown with a VM shell open (process runtime)', () => {
  test('hangs the shell up, tells the client, and stops', async () => {
    const svc = await startTestService({
      runtime: 'process',
      sshListen: { host: '127.0.0.1', port: 0 },
    });
    const marker = uniqueMarker();
    let c: SizedPtyClient | undefined;
    let stopped = false;
    try {
      const made = await run('ssh', sshArgsFor(svc, 'new --name vm1'));
      assert.equal(made.code, 0, made.stderr);
      c = new SizedPtyClient(sshArgsFor(svc, 'ssh vm1'), SIZE);
      await c.waitFor(/# $/);
      assert.equal(await c.run('echo $((6*7))'), '42\r\n');
      c.type(`sleep ${marker}\r`);
      await waitUntil(async () => (await hostPidsWith(`sleep ${marker}`)).length === 1);
      stopped = true;
      await svc.stop();
      await c.waitFor(/error: the server is shutting down\r\n/);
      assert.equal(await c.exitCode(), 130);
      assert.deepEqual(await hostPidsWith(`sleep ${marker}`), []);
    } finally {
      await c?.stop();
      if (!stopped) await svc.stop();
    }
  });
});

/** Arguments of the OpenSSH client for `svc`'s SSH listener, as its owner. */
function sshArgsFor(svc: TestService, command?: string): string[] {
  const ssh = svc.service.endpoints.ssh!;
  return [
    ...['-F', '/dev/null', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no'],
    ...['-o', `UserKnownHostsFile=${svc.dir.join('known_hosts')}`, '-o', 'LogLevel=ERROR'],
    ...['-o', 'IdentitiesOnly=yes', '-i', svc.owner.key.path, '-p', String(ssh.port)],
    ssh.host,
    ...(command === undefined ? [] : [command]),
  ];
}

/** Polls `check` until it holds (processes end asynchronously after a hangup). */
async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
