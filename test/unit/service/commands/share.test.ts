import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openCommandFixture, T0, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;

before(async () => {
  fx = await openCommandFixture();
  ada = fx.addUser('ada@example.com');
  fx.addVm(ada, 'web', { defaultPort: 3000 });
  fx.addVm(ada, 'api');
});
after(() => fx.cleanup());

const entry = (name: string, extra: Record<string, unknown> = {}) => ({
  vm_name: name,
  visibility: 'private',
  port: 8000,
  url: `http://${name}.localhost:7070`,
  users: [],
  links: [],
  ...extra,
});

test('share show: every own VM, or one', async () => {
  assert.deepEqual(await fx.run(ada, 'share show'), {
    shares: [entry('api'), entry('web', { port: 3000 })],
  });
  assert.deepEqual(await fx.run(ada, 'share show web'), {
    shares: [entry('web', { port: 3000 })],
  });
  assert.equal(
    await fx.text(ada, 'share show'),
    'VM   VISIBILITY  PORT  URL                        USERS\n' +
      'api  private     8000  http://api.localhost:7070  -\n' +
      'web  private     3000  http://web.localhost:7070  -\n',
  );
});

test('share add and remove answer the users; emails need no account yet', async () => {
  assert.deepEqual(await fx.run(ada, 'share add web bob@example.com'), {
    vm_name: 'web',
    users: [{ email: 'bob@example.com', added_at: T0 }],
  });
  fx.advance(60);
  assert.deepEqual(await fx.run(ada, 'share add web carol@example.com'), {
    vm_name: 'web',
    users: [
      { email: 'bob@example.com', added_at: T0 },
      { email: 'carol@example.com', added_at: '2025-03-01T12:01:00Z' },
    ],
  });
  assert.equal(
    await fx.text(ada, 'share show web'),
    'VM   VISIBILITY  PORT  URL                        USERS\n' +
      'web  private     3000  http://web.localhost:7070  bob@example.com,carol@example.com\n',
  );
  assert.deepEqual(await fx.run(ada, 'share remove web bob@example.com'), {
    vm_name: 'web',
    users: [{ email: 'carol@example.com', added_at: '2025-03-01T12:01:00Z' }],
  });
  assert.equal(await fx.text(ada, 'share remove web carol@example.com'), 'web is shared with: -\n');
});

test('share add/remove failures', async () => {
  await fx.run(ada, 'share add api dan@example.com');
  const cases: [line: string, message: string][] = [
    ['share add api dan@example.com', 'vm "api" is already shared with dan@example.com'],
    ['share add api DAN@example.com', 'vm "api" is already shared with DAN@example.com'],
    [
      'share remove api eve@example.com',
      'share not found: vm "api" is not shared with eve@example.com',
    ],
    ['share add api not-an-email', 'invalid email "not-an-email"'],
    ['share add api "a b@c"', 'invalid email "a b@c"'],
    ['share add api ada@example.com', 'vm "api" is yours: share it with someone else'],
    ['share add api ADA@EXAMPLE.COM', 'vm "api" is yours: share it with someone else'],
    ['share add ghost x@example.com', 'vm "ghost" not found'],
    ['share add api', 'missing argument <email>'],
  ];
  for (const [line, message] of cases) {
    assert.deepEqual(await fx.fail(ada, line), { status: 422, message, body: undefined }, line);
  }
});

test('share set-public / set-private', async () => {
  assert.deepEqual(await fx.run(ada, 'share set-public api'), {
    vm_name: 'api',
    visibility: 'public',
  });
  assert.equal(fx.store.getVmByName('api')?.visibility, 'public');
  assert.equal(await fx.text(ada, 'share set-public api'), 'api is public\n');
  assert.deepEqual(await fx.run(ada, 'share set-private api'), {
    vm_name: 'api',
    visibility: 'private',
  });
  assert.equal(fx.store.getVmByName('api')?.visibility, 'private');
});

test('share port shows or sets the default port (1024-65535)', async () => {
  assert.deepEqual(await fx.run(ada, 'share port api'), { vm_name: 'api', port: 8000 });
  assert.deepEqual(await fx.run(ada, 'share port api 1024'), { vm_name: 'api', port: 1024 });
  assert.deepEqual(await fx.run(ada, 'share port api 65535'), { vm_name: 'api', port: 65535 });
  assert.equal(fx.store.getVmByName('api')?.defaultPort, 65535);
  assert.equal(await fx.text(ada, 'share port api'), 'api: port 65535\n');
  const portError = (text: string) =>
    `invalid port ${JSON.stringify(text)}: use a whole number from 1024 to 65535`;
  for (const bad of ['1023', '65536', '80', '0', '08080', '8080.0', '1e4', 'http', '-1', '99999']) {
    assert.deepEqual(
      await fx.fail(ada, `share port api -- ${bad}`),
      { status: 422, message: portError(bad), body: undefined },
      bad,
    );
  }
  assert.equal(fx.store.getVmByName('api')?.defaultPort, 65535);
});

test("share port refuses the service's own listeners (HTTP, SSH, reflection)", async () => {
  // The fixture's endpoints: HTTP 7070, SSH 7022, reflection 7071.
  for (const port of [7070, 7022, 7071]) {
    assert.deepEqual(await fx.fail(ada, `share port api ${port}`), {
      status: 422,
      message: `port ${port} is one of exectl's own listeners: choose another`,
      body: undefined,
    });
  }
  assert.equal(fx.store.getVmByName('api')?.defaultPort, 65535);
});

test("another account's share show lists only its own VMs", async () => {
  const bob = fx.addUser('bob@example.com');
  fx.addVm(bob, 'bobs');
  assert.deepEqual(await fx.run(bob, 'share show'), { shares: [entry('bobs')] });
  assert.equal(await fx.text(fx.addUser('zed@example.com'), 'share show'), 'no vms\n');
});
