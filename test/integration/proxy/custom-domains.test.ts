// `domain add` (SPEC §3): the VM proxy routes `Host: <domain>` (and every name under a
// wildcard) to the VM exactly as its own name — the same token rules, the same 401 — and stops
// the moment the domain is removed or the VM is gone. Real servers in real VMs, real curl
// sending the Host headers a browser or an attacker would.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  curl,
  echoOf,
  headerText,
  startProxyFixture,
  withToken,
  type ProxyFixture,
} from './fixture.js';

describe('VM proxy: custom domains', () => {
  let f: ProxyFixture;
  let token: string;
  const at = (host: string, args: string[] = []) =>
    curl(`${f.svc.url}/path?q=1`, ['-H', `Host: ${host}`, ...args]);

  before(async () => {
    f = await startProxyFixture();
    await f.createVm('vm1');
    await f.startEchoServer('vm1');
    await f.createVm('vm2');
    await f.startEchoServer('vm2');
    token = await f.vmToken('vm1');
    await f.exec('domain add vm1 app.example.com');
    await f.exec('domain add --wildcard vm1 wild.example.org');
    await f.exec('domain add vm2 *.two.example.net');
  });
  after(() => f.stop());

  test('a private vm at its domain: the same 401 as at its name, the same token lets in', async () => {
    const byName = await curl(f.vmUrl('vm1'));
    const byDomain = await at('app.example.com');
    assert.equal(byDomain.status, 401);
    assert.equal(byDomain.body, byName.body);
    assert.equal(
      byDomain.headers['www-authenticate'],
      'Bearer realm="vm1.localhost", Basic realm="vm1.localhost"',
    );
    const echo = echoOf(await at(`APP.Example.com.:${f.port}`, withToken(token)));
    assert.equal(echo.url, '/path?q=1');
    assert.equal(headerText(echo.rawHeaders, 'x-exectl-email'), 'owner@example.com');
    assert.equal(headerText(echo.rawHeaders, 'x-forwarded-host'), `APP.Example.com.:${f.port}`);
  });

  test('a wildcard routes the domain and every name under it', async () => {
    for (const host of ['wild.example.org', 'a.wild.example.org', 'a.b.c.wild.example.org']) {
      assert.equal(echoOf(await at(host, withToken(token))).url, '/path?q=1', host);
    }
    const vm2 = await f.vmToken('vm2');
    assert.equal(echoOf(await at('x.two.example.net', withToken(vm2))).method, 'GET');
    assert.equal(echoOf(await at('two.example.net', withToken(vm2))).method, 'GET');
  });

  test("a token for another vm does not open the domain's vm", async () => {
    const vm2 = await f.vmToken('vm2');
    const r = await at('app.example.com', withToken(vm2));
    assert.equal(r.status, 401);
    assert.deepEqual(JSON.parse(r.body), { error: 'invalid token' });
  });

  test('hosts that only look like a domain are the service’s own, never a vm’s', async () => {
    for (const host of [
      'app.example.com.evil.test',
      'evilapp.example.com',
      'x.app.example.com',
      'app.example.com@vm1.localhost',
      'app_example.com',
      'example.org',
    ]) {
      const r = await at(host, withToken(token));
      assert.notEqual(r.status, 201, host);
      assert.ok(!r.body.includes('rawHeaders'), host);
    }
  });

  test('a public vm at its domain needs no token', async () => {
    await f.exec('share set-public vm2');
    try {
      assert.equal(echoOf(await at('y.two.example.net')).method, 'GET');
    } finally {
      await f.exec('share set-private vm2');
    }
    assert.equal((await at('y.two.example.net')).status, 401);
  });

  test('removed, the domain routes nowhere at once; a rename keeps it; rm takes it', async () => {
    await f.exec('domain add vm1 gone.example.com');
    assert.equal(echoOf(await at('gone.example.com', withToken(token))).method, 'GET');
    await f.exec('domain rm vm1 gone.example.com');
    const after = await at('gone.example.com', withToken(token));
    assert.notEqual(after.status, 201);
    assert.ok(!after.body.includes('rawHeaders'));

    await f.exec('rename vm2 vm3');
    const vm3 = await f.vmToken('vm3');
    assert.equal(echoOf(await at('z.two.example.net', withToken(vm3))).method, 'GET');
    await f.exec('rm vm3');
    const removed = await at('z.two.example.net', withToken(vm3));
    assert.notEqual(removed.status, 201);
    assert.equal(f.svc.service.store.vmNameForDomain('two.example.net'), undefined);
  });
});
