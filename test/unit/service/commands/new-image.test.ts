// `new --image`'s flags, checked before anything is stored, and its refusal where the server
// cannot boot images (the process runtime here): one 422, nothing left behind (SPEC §4a).
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

test('bad image flags are 422s naming the flag, and store no VM', async () => {
  const table: [string, string][] = [
    [
      'new --name aa --image UPPER',
      '--image "UPPER" is not an image reference: its name has lowercase letters, digits and . _ - / only',
    ],
    ['new --name aa --command none', '--command and --registry-auth go with --image'],
    ['new --name aa --image busybox --registry-auth nocolon', '--registry-auth is not USER:PASS'],
    [
      'new --name aa --image busybox --command ""',
      '--command is empty: give auto, none or a command',
    ],
  ];
  for (const [line, message] of table) {
    const failure = await fx.fail(ada, line);
    assert.equal(failure.status, 422, line);
    assert.equal(failure.message, message, line);
  }
  assert.equal(fx.store.getVmByName('aa'), undefined);
});

test('a server that cannot boot images refuses new --image with one 422, and keeps no VM', async () => {
  const failure = await fx.fail(ada, 'new --name bb --image busybox:1');
  assert.equal(failure.status, 422);
  assert.equal(
    failure.message,
    'could not pull image "busybox:1": new --image needs a server running as root',
  );
  assert.equal(fx.store.getVmByName('bb'), undefined);
});
