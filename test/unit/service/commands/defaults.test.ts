// `defaults read|write|delete` (SPEC §3) through the real dispatcher and store, and `new`
// taking the account's `dev.exe new.setup-script` when it gets no --setup-script.
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
});
after(() => fx.cleanup());

test('write, read and delete one default; each account has its own', async () => {
  assert.deepEqual(await fx.run(ada, 'defaults read'), { defaults: {} });
  assert.deepEqual(
    await fx.run(ada, `defaults write dev.exe new.setup-script 'touch /tmp/a\nline 2'`),
    { domain: 'dev.exe', key: 'new.setup-script', status: 'written' },
  );
  const written = { defaults: { 'dev.exe': { 'new.setup-script': 'touch /tmp/a\nline 2' } } };
  assert.deepEqual(await fx.run(ada, 'defaults read'), written);
  assert.deepEqual(await fx.run(ada, 'defaults read dev.exe'), written);
  assert.deepEqual(await fx.run(ada, 'defaults read dev.exe new.setup-script'), written);
  assert.equal(
    await fx.text(ada, 'defaults read'),
    'dev.exe new.setup-script:\n  touch /tmp/a\n  line 2\n',
  );
  assert.deepEqual(await fx.run(bob, 'defaults read'), { defaults: {} });
  assert.deepEqual(await fx.run(ada, 'defaults delete dev.exe new.setup-script'), {
    domain: 'dev.exe',
    key: 'new.setup-script',
    status: 'deleted',
  });
  assert.deepEqual(await fx.fail(ada, 'defaults read dev.exe new.setup-script'), {
    status: 422,
    message: 'default dev.exe new.setup-script is not set',
    body: undefined,
  });
  assert.deepEqual(await fx.fail(ada, 'defaults delete dev.exe new.setup-script'), {
    status: 422,
    message: 'default dev.exe new.setup-script is not set',
    body: undefined,
  });
  assert.equal(await fx.text(ada, 'defaults read'), 'no defaults\n');
});

test('only the defaults a command reads exist; sizes are bounded', async () => {
  const unknown = (d: string, k: string) =>
    `unknown default ${JSON.stringify(d)} ${JSON.stringify(k)}: the defaults are dev.exe new.setup-script`;
  for (const [domain, key] of [
    ['dev.exe', 'constructor'],
    ['dev.exe', '__proto__'],
    ['com.apple', 'new.setup-script'],
    ['__proto__', 'x'],
  ] as const) {
    assert.deepEqual(await fx.fail(ada, `defaults write ${domain} ${key} x`), {
      status: 422,
      message: unknown(domain, key),
      body: undefined,
    });
  }
  assert.deepEqual(await fx.fail(ada, 'defaults read com.apple'), {
    status: 422,
    message: 'unknown defaults domain "com.apple": the domains are dev.exe',
    body: undefined,
  });
  // Over /exec there is no standard input to read the value from.
  assert.deepEqual(await fx.fail(ada, 'defaults write dev.exe new.setup-script'), {
    status: 422,
    message: 'missing argument <value>',
    body: undefined,
  });
  const big = 'x'.repeat(65_537);
  assert.deepEqual(await fx.fail(ada, `defaults write dev.exe new.setup-script ${big}`), {
    status: 422,
    message: 'the value of dev.exe new.setup-script exceeds 65536 bytes',
    body: undefined,
  });
});

test('a tag-scoped key cannot use the account’s defaults', async () => {
  const ci = { ...ada, principal: { ...ada.principal, tag: 'ci' } };
  for (const line of ['defaults read', 'defaults write dev.exe new.setup-script x']) {
    assert.deepEqual(await fx.fail(ci, line), {
      status: 403,
      message:
        'this key is limited to vms tagged "ci" and cannot use the account\'s defaults: use a key without --tag',
      body: undefined,
    });
  }
});

test('new runs the default setup script when it gets no --setup-script', async () => {
  await fx.run(ada, `defaults write dev.exe new.setup-script 'echo from-default > "$HOME/made"'`);
  await fx.run(ada, 'new --name with-default');
  await fx.run(ada, "new --name with-own --setup-script 'true'");
  await fx.run(bob, 'new --name bobs-own');
  assert.equal(
    fx.store.getVmByName('with-default')!.setupScript,
    'echo from-default > "$HOME/made"',
  );
  assert.equal(fx.store.getVmByName('with-own')!.setupScript, 'true');
  assert.equal(fx.store.getVmByName('bobs-own')!.setupScript, null);
  await fx.run(ada, 'defaults delete dev.exe new.setup-script');
  await fx.run(ada, 'new --name after-delete');
  assert.equal(fx.store.getVmByName('after-delete')!.setupScript, null);
});
