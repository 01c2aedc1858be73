// SPEC §4b: `share receive-email <vm> [on|off]` answers the real service's shape, is the
// owner's alone, and outlives a rename (the setting belongs to the VM, not its name).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openCommandFixture, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;
let bob: User;

before(async () => {
  fx = await openCommandFixture();
  ada = fx.addUser('ada@example.com');
  bob = fx.addUser('bob@example.com');
  const web = fx.addVm(ada, 'web');
  fx.store.addShare(web.id, 'bob@example.com');
});
after(() => fx.cleanup());

test('off by default; on and off set it, and without either it reports', async () => {
  const cases: [line: string, receiving: boolean][] = [
    ['share receive-email web', false],
    ['share receive-email web on', true],
    ['share receive-email web', true],
    ['share receive-email web on', true],
    ['share receive-email web off', false],
    ['share receive-email web', false],
  ];
  for (const [line, receiving] of cases) {
    assert.deepEqual(await fx.run(ada, line), { vm_name: 'web', receive_email: receiving }, line);
  }
  await fx.run(ada, 'share receive-email web on');
  assert.equal(await fx.text(ada, 'share receive-email web'), 'web receives email\n');
  await fx.run(ada, 'share receive-email web off');
  assert.equal(await fx.text(ada, 'share receive-email web'), 'web does not receive email\n');
});

test('a word other than on or off is refused, naming it', async () => {
  assert.deepEqual(await fx.fail(ada, 'share receive-email web yes'), {
    status: 422,
    message: 'receive-email takes "on" or "off", not "yes"',
    body: undefined,
  });
});

test('only the owner: a user it is shared with is refused, a stranger sees no VM', async () => {
  assert.deepEqual(await fx.fail(bob, 'share receive-email web on'), {
    status: 422,
    message: 'only the owner of vm "web" can change its sharing',
    body: undefined,
  });
  const stranger = fx.addUser('eve@example.com');
  assert.deepEqual(await fx.fail(stranger, 'share receive-email web'), {
    status: 422,
    message: 'vm "web" not found',
    body: undefined,
  });
});

test('the setting stays with the VM through a rename', async () => {
  fx.addVm(ada, 'mail');
  await fx.run(ada, 'share receive-email mail on');
  await fx.run(ada, 'rename mail inbox');
  assert.deepEqual(await fx.run(ada, 'share receive-email inbox'), {
    vm_name: 'inbox',
    receive_email: true,
  });
});
