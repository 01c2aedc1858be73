// new, rm and restart with the REAL VM machinery (process runtime): disks, setup scripts and
// processes are real; only the listeners are absent.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { emojiFor } from '../../../../src/service/rules/emoji.js';
import { ADJECTIVES, NOUNS } from '../../../../src/service/rules/random-name.js';
import type { VmRecord } from '../../../../src/service/store/index.js';
import { openCommandFixture, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;
let bob: User;

before(async () => {
  fx = await openCommandFixture();
  ada = fx.addUser('ada@example.com');
  bob = fx.addUser('bob@example.com');
});
after(() => fx.cleanup());

const diskOf = (vm: VmRecord) => fx.dir.join('vms', String(vm.id));

/** Runs a shell command in the VM through the same machinery `ssh <vm>` uses. */
async function inVm(vm: VmRecord, command: string): Promise<{ exitCode: number; output: string }> {
  const chunks: Buffer[] = [];
  const { exitCode } = await fx.machines.exec(vm, command, {
    signal: new AbortController().signal,
    onOutput: (chunk) => chunks.push(chunk),
  });
  return { exitCode, output: Buffer.concat(chunks).toString('utf8') };
}

test('new: every option lands in the VM; the setup script ran once inside; status running', async () => {
  const data = await fx.run(
    ada,
    "new --name web --tag prod --tag eu --comment 'the site' --env GREETING=hello " +
      '--integration reflection --setup-script \'echo made > "$HOME/marker"\'',
  );
  assert.deepEqual(data, {
    vm_name: 'web',
    emoji: emojiFor('web'),
    status: 'running',
    tags: ['eu', 'prod'],
    default_port: 8000,
    https_url: 'http://web.localhost:7070',
    ssh_dest: 'vm+web@localhost',
    ssh_host: 'localhost',
    ssh_port: 7022,
    ssh_user: 'vm+web',
    region: 'local',
    region_display: 'Local',
    image: null,
  });
  const vm = fx.store.getVmByName('web')!;
  assert.equal(vm.accountId, ada.account.id);
  assert.equal(vm.status, 'running');
  assert.equal(vm.comment, 'the site');
  assert.deepEqual(vm.env, { GREETING: 'hello' });
  assert.equal(vm.setupScript, 'echo made > "$HOME/marker"');
  assert.deepEqual(fx.store.getIntegration(ada.account.id, 'reflection')?.attachments, [
    'auto:all',
    'vm:web',
  ]);
  assert.ok(existsSync(diskOf(vm)));
  assert.deepEqual(await inVm(vm, 'cat "$HOME/marker"; echo "$GREETING"'), {
    exitCode: 0,
    output: 'made\nhello\n',
  });
  assert.equal(
    await fx.text(ada, 'ls web'),
    `NAME    STATUS   TAGS     URL\n${emojiFor('web')} web  running  eu,prod  http://web.localhost:7070\n`,
  );
});

test('new without --name picks a free adjective-noun name', async () => {
  const made = new Set<string>();
  for (let i = 0; i < 3; i += 1) {
    const { vm_name: name } = (await fx.run(ada, 'new')) as { vm_name: string };
    const [adjective, noun, ...rest] = name.split('-');
    assert.ok(ADJECTIVES.includes(adjective!) && NOUNS.includes(noun!) && rest.length === 0, name);
    assert.equal(fx.store.getVmByName(name)?.status, 'running');
    made.add(name);
  }
  assert.equal(made.size, 3);
  const text = await fx.text(ada, 'new --name texted');
  assert.equal(
    text,
    `vm:     ${emojiFor('texted')} texted\n` +
      'status: running\n' +
      'tags:   -\n' +
      'port:   8000\n' +
      'url:    http://texted.localhost:7070\n' +
      'ssh:    ssh -p 7022 vm+texted@localhost\n' +
      'region: local\n',
  );
});

test('new: a failing setup script answers 422 with its last line and leaves the VM failed', async () => {
  const failure = await fx.fail(ada, "new --name broken --setup-script 'echo oops; exit 3'");
  assert.deepEqual(failure, {
    status: 422,
    message: 'setup script of vm "broken" failed: oops',
    body: undefined,
  });
  const vm = fx.store.getVmByName('broken')!;
  assert.equal(vm.status, 'failed');
  assert.deepEqual(vm.setup, { status: 'failed', lastLine: 'oops' });
  const stat = (await fx.run(ada, 'stat broken')) as { status: string; setup: unknown };
  assert.deepEqual([stat.status, stat.setup], ['failed', { status: 'failed', last_line: 'oops' }]);
  // Its output is kept in the VM (the process runtime's VM has no /var/log: its folder).
  assert.deepEqual(await inVm(vm, 'cat "$HOME/exectl-setup.log"'), {
    exitCode: 0,
    output: 'oops\n',
  });
  await fx.run(ada, 'rm broken');
});

test("new: a setup script's long last line is cut to 200 characters; no output: the exit code", async () => {
  const script = "printf 'first\\n'; printf 'x%.0s' $(seq 1 300); exit 4";
  const failure = await fx.fail(ada, `new --name chatty --setup-script "${script}"`);
  assert.equal(failure.message, `setup script of vm "chatty" failed: ${'x'.repeat(200)}…`);
  const silent = await fx.fail(ada, "new --name silent --setup-script 'exit 5'");
  assert.equal(silent.message, 'setup script of vm "silent" failed: exit code 5');
});

test('new: invalid input is refused before anything is made', async () => {
  await fx.run(bob, 'new --name taken');
  const before = fx.store.listVmsOwnedBy(ada.account.id).length;
  const cases: [line: string, message: string][] = [
    [
      'new --name Web',
      'invalid vm name "Web": use 2 to 63 lowercase letters, digits or dashes, starting with a letter and not ending with a dash',
    ],
    ['new --name taken', 'vm name "taken" is not available: choose another'],
    [
      'new --tag Prod',
      'invalid tag "Prod": use 1 to 63 lowercase letters, digits, "_" or "-", starting with a letter',
    ],
    [`new --comment ${'x'.repeat(201)}`, 'comment exceeds 200 bytes'],
    ['new --env NOPE', 'invalid --env "NOPE": expected KEY=VALUE with KEY a shell variable name'],
    ['new --env A=1 --env A=2', '--env A given more than once'],
    ['new --name lonely --integration ghost', 'integration "ghost" not found'],
    ['new --name x1 --name x2', 'flag --name given more than once'],
    ['new one extra', 'unexpected argument "extra"'],
    ['new --name=one two', 'two names given, "two" and --name "one": give one'],
    ['new --prompt=hi', '--prompt is not taken: no coding agent runs in this emulator'],
    ['new --memory=lots', 'invalid --memory "lots": expected a size such as 512M or 4G'],
  ];
  for (const [line, message] of cases) {
    assert.deepEqual(await fx.fail(ada, line), { status: 422, message, body: undefined }, line);
  }
  assert.equal(fx.store.listVmsOwnedBy(ada.account.id).length, before);
  assert.equal(fx.store.getVmByName('lonely'), undefined);
});

test('restart kills background processes of the VM; the disk stays', async () => {
  await fx.run(ada, 'new --name busy');
  const vm = fx.store.getVmByName('busy')!;
  const started = await inVm(
    vm,
    'nohup sleep 300 >/dev/null 2>&1 & echo $! > "$HOME/pid"; echo kept > "$HOME/file"',
  );
  assert.equal(started.exitCode, 0);
  const pid = Number(readFileSync(`${diskOf(vm)}/pid`, 'utf8'));
  assert.ok(isAlive(pid), 'the background process runs');
  assert.deepEqual(await fx.run(ada, 'restart busy'), { vm_name: 'busy', status: 'restarted' });
  assert.ok(!isAlive(pid), 'restart killed it');
  assert.deepEqual(await inVm(vm, 'cat "$HOME/file"'), { exitCode: 0, output: 'kept\n' });
  assert.equal(await fx.text(ada, 'restart busy'), 'restarted busy\n');
});

test('rm deletes record, processes and disk; failures come back with the same JSON', async () => {
  await fx.run(ada, 'new --name gone-1');
  await fx.run(ada, 'new --name gone-2');
  const vms = ['gone-1', 'gone-2'].map((n) => fx.store.getVmByName(n)!);
  assert.deepEqual(await fx.run(ada, 'rm gone-1'), { deleted: ['gone-1'], failed: [] });
  const failure = await fx.fail(ada, 'rm ghost gone-2 taken');
  const body = {
    deleted: ['gone-2'],
    failed: [
      { vm_name: 'ghost', error: 'vm "ghost" not found' },
      { vm_name: 'taken', error: 'vm "taken" not found' },
    ],
  };
  assert.deepEqual(failure, { status: 422, message: 'vm "ghost" not found', body });
  for (const vm of vms) {
    assert.equal(fx.store.getVm(vm.id), undefined);
    assert.ok(!existsSync(diskOf(vm)), `${vm.name}'s disk is gone`);
  }
  assert.ok(fx.store.getVmByName('taken') !== undefined, "bob's VM is untouched");
});

test('owner only: a shared user cannot rm or restart; a stranger sees not found', async () => {
  await fx.run(bob, 'new --name bobs');
  await fx.run(bob, 'share add bobs ada@example.com');
  assert.deepEqual(await fx.fail(ada, 'rm bobs'), {
    status: 422,
    message: 'only the owner of vm "bobs" can delete it',
    body: {
      deleted: [],
      failed: [{ vm_name: 'bobs', error: 'only the owner of vm "bobs" can delete it' }],
    },
  });
  assert.equal(
    (await fx.fail(ada, 'restart bobs')).message,
    'only the owner of vm "bobs" can restart it',
  );
  const carol = fx.addUser('carol@example.com');
  assert.equal((await fx.fail(carol, 'restart bobs')).message, 'vm "bobs" not found');
  assert.equal((await fx.fail(carol, 'rm bobs')).message, 'vm "bobs" not found');
  assert.ok(fx.store.getVmByName('bobs') !== undefined);
  assert.equal(await fx.text(bob, 'rm bobs'), 'deleted: bobs\n');
});

/** Running, as opposed to gone or a zombie waiting to be reaped (which has stopped running). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name in parentheses, which may itself contain spaces.
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
