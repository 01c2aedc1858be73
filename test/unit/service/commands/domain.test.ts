// `domain add|rm|ls` (SPEC §3) through the real dispatcher and store: the shapes, one VM per
// domain, owner only, a tag-scoped key sees its tag's VMs only, and domains go with the VM but
// stay through a rename.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openCommandFixture, T0, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;
let bob: User;
let ci: User;

before(async () => {
  fx = await openCommandFixture();
  ada = fx.addUser('ada@example.com');
  bob = fx.addUser('bob@example.com');
  fx.addVm(ada, 'web', { tags: ['ci'] });
  fx.addVm(ada, 'api');
  fx.addVm(bob, 'bobs');
  await fx.run(ada, 'share add web bob@example.com');
  ci = { ...ada, principal: { ...ada.principal, tag: 'ci' } };
});
after(() => fx.cleanup());

test('domain add answers the real shape, DNS not checked; ls lists it', async () => {
  assert.deepEqual(await fx.run(ada, 'domain add web App.Example.com'), {
    vm_name: 'web',
    domain: 'app.example.com',
    wildcard: false,
    status: 'added',
    dns: 'not checked',
  });
  assert.deepEqual(await fx.run(ada, 'domain add --wildcard api example.org'), {
    vm_name: 'api',
    domain: 'example.org',
    wildcard: true,
    status: 'added',
    dns: 'not checked',
  });
  assert.deepEqual(await fx.run(ada, 'domain add api *.api.example.com'), {
    vm_name: 'api',
    domain: 'api.example.com',
    wildcard: true,
    status: 'added',
    dns: 'not checked',
  });
  const all = {
    domains: [
      { vm_name: 'api', domain: 'api.example.com', wildcard: true, added_at: T0 },
      { vm_name: 'api', domain: 'example.org', wildcard: true, added_at: T0 },
      { vm_name: 'web', domain: 'app.example.com', wildcard: false, added_at: T0 },
    ],
  };
  assert.deepEqual(await fx.run(ada, 'domain ls'), all);
  assert.deepEqual(await fx.run(ada, 'domain ls -a'), all);
  assert.deepEqual(await fx.run(ada, 'domain ls web'), { domains: [all.domains[2]] });
  assert.equal(
    await fx.text(ada, 'domain ls'),
    'VM   DOMAIN             ADDED\n' +
      `api  *.api.example.com  ${T0}\n` +
      `api  *.example.org      ${T0}\n` +
      `web  app.example.com    ${T0}\n`,
  );
  assert.equal(
    await fx.text(ada, 'domain add web www.example.com'),
    'added www.example.com to web (DNS not checked)\n',
  );
  await fx.run(ada, 'domain rm web www.example.com');
});

test('a domain belongs to one vm, whoever holds it', async () => {
  assert.deepEqual(await fx.fail(bob, 'domain add bobs app.example.com'), {
    status: 422,
    message: 'domain "app.example.com" is already in use: a domain routes to one vm only',
    body: undefined,
  });
  assert.equal((await fx.fail(ada, 'domain add api APP.example.com')).status, 422);
});

test('only the owner adds, removes or lists; others see "not found"', async () => {
  assert.deepEqual(await fx.fail(bob, 'domain add web b.example.com'), {
    status: 422,
    message: 'only the owner of vm "web" can change its domains',
    body: undefined,
  });
  assert.equal((await fx.fail(bob, 'domain rm web app.example.com')).status, 422);
  assert.equal((await fx.fail(bob, 'domain ls web')).status, 422);
  assert.deepEqual(await fx.run(bob, 'domain ls'), { domains: [] });
  assert.deepEqual(await fx.fail(bob, 'domain add api b.example.com'), {
    status: 422,
    message: 'vm "api" not found',
    body: undefined,
  });
});

test('domain rm: by the name ls shows or the one added; a missing one is 422', async () => {
  await fx.run(ada, 'domain add web tmp.example.com');
  assert.deepEqual(await fx.run(ada, 'domain rm web TMP.example.com'), {
    vm_name: 'web',
    domain: 'tmp.example.com',
    status: 'removed',
  });
  assert.deepEqual(await fx.run(ada, 'domain rm api *.api.example.com'), {
    vm_name: 'api',
    domain: 'api.example.com',
    status: 'removed',
  });
  assert.deepEqual(await fx.fail(ada, 'domain rm web tmp.example.com'), {
    status: 422,
    message: 'vm "web" has no domain "tmp.example.com"',
    body: undefined,
  });
  assert.equal(
    await fx.text(ada, 'domain add web tmp.example.com'),
    'added tmp.example.com to web (DNS not checked)\n',
  );
  assert.equal(
    await fx.text(ada, 'domain rm web tmp.example.com'),
    'removed tmp.example.com from web\n',
  );
});

test("hostile names and the service's own are refused", async () => {
  for (const name of ['web.localhost', 'localhost', '127.0.0.1', 'a..b', 'evil.com/x', '*']) {
    assert.equal((await fx.fail(ada, `domain add web '${name}'`)).status, 422, name);
  }
});

test('a tag-scoped key sees and touches only its tag’s vms', async () => {
  assert.deepEqual(await fx.run(ci, 'domain ls'), {
    domains: [{ vm_name: 'web', domain: 'app.example.com', wildcard: false, added_at: T0 }],
  });
  assert.deepEqual(await fx.fail(ci, 'domain add api ci.example.com'), {
    status: 422,
    message: 'vm "api" not found',
    body: undefined,
  });
  assert.equal((await fx.fail(ci, 'domain ls api')).message, 'vm "api" not found');
});

test('a rename keeps the domains; rm takes them with the vm', async () => {
  fx.addVm(ada, 'old');
  await fx.run(ada, 'domain add old keep.example.com');
  fx.store.renameVm(fx.store.getVmByName('old')!.id, 'new');
  assert.equal(fx.store.vmNameForDomain('keep.example.com'), 'new');
  assert.deepEqual(await fx.run(ada, 'domain ls new'), {
    domains: [{ vm_name: 'new', domain: 'keep.example.com', wildcard: false, added_at: T0 }],
  });
  fx.store.deleteVm(fx.store.getVmByName('new')!.id);
  assert.equal(fx.store.vmNameForDomain('keep.example.com'), undefined);
  fx.addVm(bob, 'again');
  assert.equal((await fx.run(bob, 'domain add again keep.example.com')) !== undefined, true);
});

test('the route of a host: the domain itself, else the nearest wildcard above it', () => {
  assert.equal(fx.store.vmNameForDomain('app.example.com'), 'web');
  assert.equal(fx.store.vmNameForDomain('example.org'), 'api');
  assert.equal(fx.store.vmNameForDomain('a.b.example.org'), 'api');
  assert.equal(fx.store.vmNameForDomain('x.app.example.com'), undefined);
  assert.equal(fx.store.vmNameForDomain('example.com'), undefined);
});
