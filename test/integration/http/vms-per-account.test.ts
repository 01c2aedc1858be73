// One account's VMs are bounded as a whole (SPEC §7, `--max-vms-per-account`): `new` and `cp`
// past the limit answer 422 naming it, another account is not affected, and `rm` makes room.
// The red team made 18 VMs in 1.4 s with no limit at all. Scaled down: a limit of 2.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../../helpers/service.js';

const FAR = 4_000_000_000;
const LIMIT = 2;
const REFUSED = {
  status: 422,
  body: {
    error: `this account has ${LIMIT} vms, the most this server allows (--max-vms-per-account ${LIMIT}): remove one with rm first`,
  },
};
let svc: TestService;
let ada: string;
let bob: string;

async function exec(token: string, line: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${svc.url}/exec`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: line,
  });
  return { status: res.status, body: JSON.parse(await res.text()) as unknown };
}

async function made(token: string, line: string): Promise<void> {
  const answer = await exec(token, line);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
}

before(async () => {
  svc = await startTestService({ maxVmsPerAccount: LIMIT });
  const cmds = JSON.stringify({ exp: FAR, cmds: ['new', 'cp', 'rm', 'ls'] });
  ada = await svc.token(cmds);
  bob = await svc.token(cmds, await svc.addAccount('bob@example.com'));
});
after(() => svc.stop());

test('new and cp past the limit: 422 naming it; nothing is stored', async () => {
  await made(ada, 'new --name ada-1');
  await made(ada, 'new --name ada-2');
  assert.deepEqual(await exec(ada, 'new --name ada-3'), REFUSED);
  assert.deepEqual(await exec(ada, 'new'), REFUSED);
  assert.deepEqual(await exec(ada, 'cp ada-1 ada-copy'), REFUSED);
  const owner = svc.service.store.findAccountByEmail('owner@example.com')!;
  assert.deepEqual(
    svc.service.store
      .listVmsOwnedBy(owner.id)
      .map((vm) => vm.name)
      .sort(),
    ['ada-1', 'ada-2'],
  );
});

test('another account has a limit of its own', async () => {
  await made(bob, 'new --name bob-1');
  await made(bob, 'new --name bob-2');
  assert.deepEqual(await exec(bob, 'new --name bob-3'), REFUSED);
});

test('rm makes room again', async () => {
  await made(ada, 'rm ada-2');
  await made(ada, 'new --name ada-3');
  assert.deepEqual(await exec(ada, 'new --name ada-4'), REFUSED);
});
