// Integration loops (SPEC §6): an integration never forwards to exectl's own listeners. Such a
// target is refused at `integrations add`; one that gets in anyway (a record from before the
// listeners moved, a name that resolves differently later) is refused when the forwarded
// request arrives back, with 508.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startReflectionHarness, type ReflectionHarness } from './harness.js';

let h: ReflectionHarness;
let ports: { http: number; reflection: number; ssh: number };
before(async () => {
  // Its targets are on 127.0.0.1, a private address (SPEC §6; private-targets.test.ts).
  h = await startReflectionHarness({
    sshListen: { host: '127.0.0.1', port: 0 },
    allowPrivateTargets: true,
  });
  const { endpoints } = h.svc.service;
  ports = {
    http: Number(new URL(endpoints.http).port),
    reflection: Number(new URL(endpoints.reflection).port),
    ssh: endpoints.ssh!.port,
  };
  await h.exec('new --name vm1');
});
after(() => h.stop());

test('integrations add refuses a target on one of its own listeners, however it is named', async () => {
  const targets: [target: string, shown: string][] = [
    [`http://127.0.0.1:${ports.http}`, `http://127.0.0.1:${ports.http}`],
    [`http://localhost:${ports.reflection}/vm`, `http://localhost:${ports.reflection}`],
    [`http://[::1]:${ports.ssh}`, `http://[::1]:${ports.ssh}`],
    [`http://0.0.0.0:${ports.http}`, `http://0.0.0.0:${ports.http}`],
    [`http://127.9.8.7:${ports.reflection}`, `http://127.9.8.7:${ports.reflection}`],
    // WHATWG URLs read a bare number as an IPv4 address: 2130706433 is 127.0.0.1.
    [`http://2130706433:${ports.http}`, `http://127.0.0.1:${ports.http}`],
    [`http://[::ffff:127.0.0.1]:${ports.http}`, `http://[::ffff:7f00:1]:${ports.http}`],
    // A VM address of this very service.
    [`http://vm1.localhost:${ports.http}/`, `http://vm1.localhost:${ports.http}`],
  ];
  for (const [target, shown] of targets) {
    const r = await h.execRaw(`integrations add http-proxy --name loop --target ${target}`);
    assert.equal(r.status, 422, `${target}: ${r.text}`);
    assert.deepEqual(JSON.parse(r.text), {
      error: `invalid target "${shown}": it is one of exectl's own listeners`,
    });
  }
  // Another port of the same host is an ordinary target.
  await h.exec(
    `integrations add http-proxy --name other --target http://127.0.0.1:${ports.http + 1}`,
  );
  await h.exec('integrations remove other');
});

test('a request that comes back through an integration is refused with 508', async () => {
  const vm = h.svc.service.store.getVmByName('vm1')!;
  const account = h.svc.service.store.findAccountByEmail(h.svc.owner.email)!;
  // Written straight to the store, as a record made before the listeners moved would be.
  for (const [name, target] of [
    ['to-http', h.svc.service.endpoints.http],
    ['to-reflection', `${h.svc.service.endpoints.reflection}/vm/${vm.reflectionSecret}`],
    ['to-itself', `${h.svc.service.endpoints.reflection}/vm/${vm.reflectionSecret}/i/to-itself`],
  ] as const) {
    h.svc.service.store.createIntegration({
      accountId: account.id,
      name,
      type: 'http-proxy',
      target,
      attachments: ['vm:vm1'],
    });
    const from = h.svc.logs.length;
    const r = await h.http(`${h.reflectionUrl('vm1')}/i/${name}/exec`, { method: 'POST' });
    assert.equal(r.status, 508, `${name}: ${r.text}`);
    assert.deepEqual(JSON.parse(r.text), { error: 'integration loop' });
    const lines = h.svc.logs.slice(from);
    assert.equal(lines.filter((l) => / status=508 /.test(l)).length, 2, lines.join('\n'));
  }
});
