// Setup scripts in the background and the life cycle around them (SPEC §4), with the REAL VM
// machinery (process runtime) and short limits: `new` waits 5/6 of its 1.2 s deadline, a
// script may run 4 s.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ExectlError } from '../../../../src/errors.js';
import { buildRegistry } from '../../../../src/service/commands/index.js';
import { dispatch } from '../../../../src/service/dispatch/dispatcher.js';
import type { VmRecord } from '../../../../src/service/store/index.js';
import { openCommandFixture, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;

before(async () => {
  fx = await openCommandFixture({ config: { commandDeadlineMs: 1200, setupDeadlineMs: 4000 } });
  ada = fx.addUser('ada@example.com');
});
after(() => fx.cleanup());

const newVm = (line: string) =>
  // The request's own deadline is roomy (a loaded machine); `new` waits 5/6 of the configured one.
  dispatch(buildRegistry(), line, ada.principal, fx.deps, {
    deadlineMs: 10_000,
    requestId: 'req-setup',
  });

/** Waits (bounded) until the VM's stored status is no longer `creating`. */
async function settled(name: string): Promise<VmRecord> {
  for (let i = 0; i < 400; i += 1) {
    const vm = fx.store.getVmByName(name)!;
    if (vm.status !== 'creating') return vm;
    await sleep(25);
  }
  throw new Error(`vm "${name}" is still creating`);
}

async function inVm(vm: VmRecord, command: string): Promise<string> {
  const chunks: Buffer[] = [];
  await fx.machines.exec(vm, command, {
    signal: new AbortController().signal,
    onOutput: (chunk) => chunks.push(chunk),
  });
  return Buffer.concat(chunks).toString('utf8');
}

test('a script longer than the wait: new answers creating before its deadline; the script goes on to running', async () => {
  const output = await newVm(
    'new --name slow --setup-script \'echo started; sleep 2; echo finished > "$HOME/done"; echo finished\'',
  );
  assert.equal(output.output.kind, 'json');
  assert.equal((output.output as { data: { status: string } }).data.status, 'creating');
  const stat = (await fx.run(ada, 'stat slow')) as { status: string; setup: unknown };
  assert.deepEqual([stat.status, stat.setup], ['creating', { status: 'running', last_line: null }]);
  const vm = await settled('slow');
  assert.deepEqual([vm.status, vm.setup], ['running', { status: 'done', lastLine: null }]);
  assert.equal(await inVm(vm, 'cat "$HOME/exectl-setup.log"'), 'started\nfinished\n');
});

test('a script past the setup limit is killed and leaves the VM failed', async () => {
  const marker = `${process.pid}.${Date.now() % 1000}`;
  await newVm(`new --name endless --setup-script 'echo waiting; sleep 6${marker}'`);
  const vm = await settled('endless');
  assert.deepEqual(
    [vm.status, vm.setup],
    ['failed', { status: 'failed', lastLine: 'setup script killed after 4 s' }],
  );
  assert.equal(await inVm(vm, `pgrep -fx 'sleep 6${marker}' || echo none`), 'none\n');
});

test('restart is refused and rm stops the script while a VM is being created', async () => {
  await newVm("new --name doomed --setup-script 'sleep 60'");
  const vm = fx.store.getVmByName('doomed')!;
  assert.equal(vm.status, 'creating');
  assert.deepEqual(await fx.fail(ada, 'restart doomed'), {
    status: 422,
    message: 'vm "doomed" is still being created',
    body: undefined,
  });
  assert.deepEqual(await fx.run(ada, 'rm doomed'), { deleted: ['doomed'], failed: [] });
  assert.equal(fx.store.getVm(vm.id), undefined);
  assert.ok(!existsSync(fx.dir.join('vms', String(vm.id))));
});

test('a VM left creating by a stopped server is failed at the next start, running ones boot', async () => {
  const cut = fx.addVm(ada, 'cut-off', {
    status: 'creating',
    setupScript: 'apt-get install -y jq',
  });
  const bare = fx.addVm(ada, 'bare', { status: 'creating' });
  fx.machines.recoverCreations();
  const line = 'the server stopped before the VM was fully created';
  assert.deepEqual(
    [fx.store.getVm(cut.id)!.status, fx.store.getVm(cut.id)!.setup],
    ['failed', { status: 'failed', lastLine: line }],
  );
  assert.deepEqual(
    [fx.store.getVm(bare.id)!.status, fx.store.getVm(bare.id)!.setup],
    ['failed', { status: 'none', lastLine: line }],
  );
  assert.deepEqual(fx.store.listVmsWithStatus('creating'), []);
  // A running VM whose disk is gone cannot boot: it is stopped, not running.
  const ghost = fx.addVm(ada, 'ghost', { status: 'running' });
  await fx.machines.bootRunning();
  assert.equal(fx.store.getVm(ghost.id)!.status, 'stopped');
  const listed = (await fx.run(ada, 'ls ghost')) as { vms: { status: string }[] };
  assert.deepEqual(
    listed.vms.map((v) => v.status),
    ['stopped'],
  );
});

test('new answers within its deadline even when it cannot wait for the script', async () => {
  await assert.doesNotReject(newVm("new --name patient --setup-script 'sleep 3'"));
  await assert.rejects(
    dispatch(buildRegistry(), "new --name hasty --setup-script 'sleep 3'", ada.principal, fx.deps, {
      deadlineMs: 300,
      requestId: 'req-hasty',
    }),
    (error: unknown) => error instanceof ExectlError && error.status === 504,
  );
  // The script goes on regardless of the answer.
  assert.equal((await settled('hasty')).status, 'running');
  assert.equal((await settled('patient')).status, 'running');
});
