import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openCommandFixture, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;

before(async () => {
  fx = await openCommandFixture();
  ada = fx.addUser('ada@example.com');
});
after(() => fx.cleanup());

test('rename: new name, same VM; its vm: attachments follow; same name changes nothing', async () => {
  const vm = fx.addVm(ada, 'old-name', { integrations: ['reflection'] });
  assert.deepEqual(await fx.run(ada, 'rename old-name new-name'), {
    vm_name: 'new-name',
    old_name: 'old-name',
  });
  assert.equal(fx.store.getVm(vm.id)?.name, 'new-name');
  const specs = () => fx.store.getIntegration(ada.account.id, 'reflection')?.attachments;
  assert.deepEqual(specs(), ['auto:all', 'vm:new-name']);
  assert.deepEqual(await fx.run(ada, 'rename new-name new-name'), {
    vm_name: 'new-name',
    old_name: 'new-name',
  });
  assert.deepEqual(specs(), ['auto:all', 'vm:new-name']);
  assert.equal(await fx.text(ada, 'rename new-name renamed'), 'renamed new-name to renamed\n');
});

test('rename failures', async () => {
  fx.addVm(ada, 'taken');
  fx.addVm(ada, 'mine');
  const cases: [line: string, message: string][] = [
    ['rename ghost x1', 'vm "ghost" not found'],
    [
      'rename mine Bad',
      'invalid vm name "Bad": use 2 to 63 lowercase letters, digits or dashes, starting with a letter and not ending with a dash',
    ],
    [
      'rename mine a',
      'invalid vm name "a": use 2 to 63 lowercase letters, digits or dashes, starting with a letter and not ending with a dash',
    ],
    ['rename mine taken', 'vm name "taken" is not available: choose another'],
    ['rename mine', 'missing argument <new>'],
  ];
  for (const [line, message] of cases) {
    assert.deepEqual(await fx.fail(ada, line), { status: 422, message, body: undefined }, line);
  }
});

test('tag adds (sorted, once), tag -d removes; both answer the tags afterwards', async () => {
  fx.addVm(ada, 'tagged');
  assert.deepEqual(await fx.run(ada, 'tag tagged prod eu prod'), {
    vm_name: 'tagged',
    tags: ['eu', 'prod'],
  });
  assert.deepEqual(await fx.run(ada, 'tag tagged zz_top'), {
    vm_name: 'tagged',
    tags: ['eu', 'prod', 'zz_top'],
  });
  assert.deepEqual(await fx.run(ada, 'tag -d tagged eu never-set'), {
    vm_name: 'tagged',
    tags: ['prod', 'zz_top'],
  });
  assert.deepEqual(await fx.run(ada, 'tag --delete tagged prod zz_top'), {
    vm_name: 'tagged',
    tags: [],
  });
  assert.equal(await fx.text(ada, 'tag tagged a b'), 'tagged: a,b\n');
  assert.equal(await fx.text(ada, 'tag -d tagged a b'), 'tagged: -\n');
});

test('tag failures', async () => {
  const tagError = (tag: string) =>
    `invalid tag ${JSON.stringify(tag)}: use 1 to 63 lowercase letters, digits, "_" or "-", starting with a letter`;
  const cases: [line: string, message: string][] = [
    ['tag ghost prod', 'vm "ghost" not found'],
    ['tag tagged Prod', tagError('Prod')],
    ['tag tagged 1st', tagError('1st')],
    ['tag tagged ok "has space"', tagError('has space')],
    [`tag tagged ${'a'.repeat(64)}`, tagError(`${'a'.repeat(64)}`)],
    ['tag tagged', 'missing argument <tag>'],
  ];
  for (const [line, message] of cases) {
    assert.deepEqual(await fx.fail(ada, line), { status: 422, message, body: undefined }, line);
  }
  // A refused tag list changes nothing, not even its valid tags.
  assert.deepEqual(fx.store.getVmByName('tagged')?.tags, []);
});

test('comment sets, joins unquoted words, clears with ""; at most 200 bytes', async () => {
  fx.addVm(ada, 'noted');
  assert.deepEqual(await fx.run(ada, 'comment noted "staging API"'), {
    vm_name: 'noted',
    comment: 'staging API',
  });
  assert.deepEqual(await fx.run(ada, 'comment noted do not   delete'), {
    vm_name: 'noted',
    comment: 'do not delete',
  });
  assert.equal(await fx.text(ada, 'comment noted hi'), 'noted: hi\n');
  assert.deepEqual(await fx.run(ada, 'comment noted ""'), { vm_name: 'noted', comment: '' });
  assert.equal(fx.store.getVmByName('noted')?.comment, '');
  assert.equal(await fx.text(ada, "comment noted ''"), 'noted: comment cleared\n');

  const exactly200 = 'é'.repeat(100);
  assert.deepEqual(await fx.run(ada, `comment noted ${exactly200}`), {
    vm_name: 'noted',
    comment: exactly200,
  });
  assert.deepEqual(await fx.fail(ada, `comment noted ${exactly200}x`), {
    status: 422,
    message: 'comment exceeds 200 bytes',
    body: undefined,
  });
  assert.equal(fx.store.getVmByName('noted')?.comment, exactly200);
  assert.deepEqual(await fx.fail(ada, 'comment ghost hi'), {
    status: 422,
    message: 'vm "ghost" not found',
    body: undefined,
  });
  assert.deepEqual(await fx.fail(ada, 'comment noted'), {
    status: 422,
    message: 'missing argument <text>',
    body: undefined,
  });
});

test('a long or hostile name is cut and escaped in the message', async () => {
  const long = `x${'y'.repeat(100)}`;
  assert.equal(
    (await fx.fail(ada, `comment ${long} hi`)).message,
    `vm "${long.slice(0, 64)}..." not found`,
  );
  assert.equal(
    (await fx.fail(ada, 'comment "a\u001b[31mb" hi')).message,
    'vm "a\\u001b[31mb" not found',
  );
  assert.equal((await fx.fail(ada, 'comment "a\tb" hi')).message, 'vm "a\\tb" not found');
});
