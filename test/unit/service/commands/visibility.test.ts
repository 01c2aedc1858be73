// SPEC §3: a caller sees and touches only its own VMs and VMs shared with it; a VM that exists
// but is not visible answers exactly like a missing one.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openCommandFixture, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let owner: User;
let friend: User;
let stranger: User;

before(async () => {
  fx = await openCommandFixture();
  owner = fx.addUser('owner@example.com');
  friend = fx.addUser('Friend@Example.com');
  stranger = fx.addUser('stranger@example.com');
  const web = fx.addVm(owner, 'web', { tags: ['prod'], comment: 'site' });
  fx.addVm(owner, 'db');
  // Shares compare emails case-insensitively, as the store does.
  fx.store.addShare(web.id, 'friend@example.com');
});
after(() => fx.cleanup());

/** Every command line that names a VM, with the refusal a user it is shared with gets. */
const BY_OWNER_ONLY: [line: (vm: string) => string, sharedMessage: (vm: string) => string][] = [
  [(vm) => `rename ${vm} other-name`, (vm) => `only the owner of vm "${vm}" can rename it`],
  [(vm) => `tag ${vm} x`, (vm) => `only the owner of vm "${vm}" can change its tags`],
  [(vm) => `tag -d ${vm} prod`, (vm) => `only the owner of vm "${vm}" can change its tags`],
  [(vm) => `comment ${vm} hi`, (vm) => `only the owner of vm "${vm}" can change its comment`],
  [(vm) => `share show ${vm}`, (vm) => `only the owner of vm "${vm}" can see its sharing`],
  [(vm) => `share port ${vm}`, (vm) => `only the owner of vm "${vm}" can see its sharing`],
  [(vm) => `share port ${vm} 3000`, (vm) => `only the owner of vm "${vm}" can change its sharing`],
  [(vm) => `share set-public ${vm}`, (vm) => `only the owner of vm "${vm}" can change its sharing`],
  [
    (vm) => `share set-private ${vm}`,
    (vm) => `only the owner of vm "${vm}" can change its sharing`,
  ],
  [
    (vm) => `share add ${vm} x@example.com`,
    (vm) => `only the owner of vm "${vm}" can change its sharing`,
  ],
  [
    (vm) => `share remove ${vm} friend@example.com`,
    (vm) => `only the owner of vm "${vm}" can change its sharing`,
  ],
];

/** Commands that only need to see the VM. */
const BY_VIEWERS: ((vm: string) => string)[] = [
  (vm) => `ssh-key generate-api-key --vm ${vm}`,
  (vm) => `svc0-to-svc1 --vm ${vm} svc0.e30.AAAA`,
];

test('a stranger gets "not found" for a VM that exists, exactly as for one that does not', async () => {
  for (const line of [...BY_OWNER_ONLY.map(([l]) => l), ...BY_VIEWERS]) {
    const existing = await fx.fail(stranger, line('web'));
    const missing = await fx.fail(stranger, line('nope'));
    assert.deepEqual(
      existing,
      { status: 422, message: 'vm "web" not found', body: undefined },
      line('web'),
    );
    assert.deepEqual(missing, { status: 422, message: 'vm "nope" not found', body: undefined });
  }
  assert.deepEqual(await fx.run(stranger, 'ls'), { vms: [] });
  assert.deepEqual(await fx.run(stranger, 'share show'), { shares: [] });
});

test('a user a VM is shared with sees it but cannot change it', async () => {
  const names = ((await fx.run(friend, 'ls')) as { vms: { vm_name: string }[] }).vms;
  assert.deepEqual(
    names.map((v) => v.vm_name),
    ['web'],
  );
  for (const [line, message] of BY_OWNER_ONLY) {
    assert.deepEqual(await fx.fail(friend, line('web')), {
      status: 422,
      message: message('web'),
      body: undefined,
    });
    // The owner's other VM stays invisible to the friend.
    assert.equal((await fx.fail(friend, line('db'))).message, 'vm "db" not found');
  }
  const web = fx.store.getVmByName('web');
  assert.equal(web?.name, 'web');
  assert.deepEqual(web?.tags, ['prod']);
  assert.equal(web?.comment, 'site');
  assert.equal(web?.visibility, 'private');
  assert.deepEqual(
    fx.store.listShares(web!.id).map((s) => s.email),
    ['friend@example.com'],
  );
});

test('the shared user may make a VM token for the VM it can see', async () => {
  const data = (await fx.run(friend, 'ssh-key generate-api-key --vm web')) as Record<
    string,
    unknown
  >;
  assert.equal(data.namespace, 'v0@web.localhost');
});

test('once unshared, the VM is gone for the former user', async () => {
  await fx.run(owner, 'share remove web friend@example.com');
  assert.deepEqual(await fx.run(friend, 'ls'), { vms: [] });
  assert.equal((await fx.fail(friend, 'tag web x')).message, 'vm "web" not found');
});
