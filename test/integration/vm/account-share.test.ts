// One tenant's VMs as a whole, through the real service as root (SPEC §5, §7): all VMs of one
// account share one cap on their connections to each listener, so however many VMs it holds
// connections from, another account's `/exec` and its VM's reflection answer at once; and a
// VM's reflection URL answers only on connections from that VM (from another VM or from the
// host, 404). The red team's shape (18 VMs × 240 connections against a cap of 4096) scaled to
// CI: three VMs × 12 connections against a cap of 30 in all, 15 per account.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ConnectionLimits } from '../../../src/service/http/connection-caps.js';
import type { GeneratedKey } from '../../helpers/keys.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const FAR = 4_000_000_000;
const CMDS = JSON.stringify(['new', 'ssh', 'whoami']);
const LIMITS: ConnectionLimits = {
  perAddress: 12,
  total: 30,
  perAccount: 15,
  // Held connections stay held for the whole test.
  headersTimeoutMs: 120_000,
  keepAliveTimeoutMs: 120_000,
};
const HOLDERS = ['hold-1', 'hold-2', 'hold-3'];

/** A script of this folder, as a shell word that writes it into the VM's home. */
function scriptInto(name: string): string {
  const text = readFileSync(new URL(name, import.meta.url));
  return `echo ${text.toString('base64')} | base64 -d > ${name}`;
}

describe('one account’s VMs as a whole (as root)', () => {
  let svc: TestService;
  let other: GeneratedKey;
  const tokens = new Map<GeneratedKey | undefined, string>();

  const exec = async (line: string, key?: GeneratedKey) => {
    let token = tokens.get(key);
    if (token === undefined) {
      token = await svc.token(`{"exp":${FAR},"cmds":${CMDS}}`, key);
      tokens.set(key, token);
    }
    const res = await fetch(`${svc.url}/exec`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: line,
      signal: AbortSignal.timeout(60_000),
    });
    return { status: res.status, text: await res.text() };
  };
  const ok = async (line: string, key?: GeneratedKey): Promise<string> => {
    const answer = await exec(line, key);
    assert.equal(answer.status, 200, `${line}: ${answer.text}`);
    return answer.text;
  };
  const reflectionUrl = (vm: string) =>
    `${svc.service.endpoints.reflection}/vm/${svc.service.store.getVmByName(vm)!.reflectionSecret}`;
  const port = (url: string) => new URL(url).port;

  before(async () => {
    svc = await startTestService({
      runtime: 'bwrap',
      commandDeadlineMs: 25_000,
      connections: LIMITS,
    });
    assert.equal(process.getuid?.(), 0, 'these tests need a root server (machine VMs)');
    other = await svc.addAccount('other@example.com');
    for (const name of HOLDERS) await ok(`new --name ${name}`);
    await ok('new --name theirs', other);
    for (const name of HOLDERS) await ok(`ssh ${name} true`);
    await ok('ssh theirs true', other);
  });
  after(() => svc.stop());

  test('a VM’s reflection URL: 200 from its VM, 404 from another VM and from the host', async () => {
    const mine = reflectionUrl('hold-1');
    const fromItsVm = await ok(`ssh hold-1 curl -s -o /dev/null -w %{http_code} ${mine}/`);
    assert.equal(fromItsVm, '200');
    const fromAnotherVm = await ok(`ssh theirs curl -s -w ,%{http_code} ${mine}/`, other);
    assert.equal(fromAnotherVm, '{"error":"not found"}\n,404');
    const fromSameAccountsVm = await ok(`ssh hold-2 curl -s -o /dev/null -w %{http_code} ${mine}/`);
    assert.equal(fromSameAccountsVm, '404');
    const fromHost = await fetch(`${mine}/`);
    assert.deepEqual([fromHost.status, await fromHost.text()], [404, '{"error":"not found"}\n']);
    // Its integrations' addresses too.
    const integration = await fetch(`${mine}/i/anything/`);
    assert.equal(integration.status, 404);
  });

  test('one account’s VMs hold connections to its cap: another account’s /exec and reflection answer at once', async () => {
    const http = port(svc.url);
    const refl = port(svc.service.endpoints.reflection);
    // Each holder VM asks for 12 connections to each listener: 36 in all, past the cap of 30.
    const hold = (p: string, file: string) =>
      `(setsid python3 in-vm-hold.py ${p} 12 ${file} > /dev/null 2>&1 &)`;
    for (const name of HOLDERS) {
      await ok(
        `ssh ${name} ${scriptInto('in-vm-hold.py')} && ${hold(http, 'h')} && ${hold(refl, 'r')} && for i in $(seq 1 300); do [ -e h ] && [ -e r ] && break; sleep 0.1; done; cat h r`,
      );
    }
    const started = Date.now();
    const whoami = await exec('whoami', other);
    assert.equal(whoami.status, 200, whoami.text);
    const reflected = await ok(
      'ssh theirs curl -s -o /dev/null -w %{http_code} "$EXECTL_REFLECTION_URL/"',
      other,
    );
    assert.equal(reflected, '200');
    const fromTheirVm = await ok(
      `ssh theirs curl -s -o /dev/null -w %{http_code} http://127.0.0.1:${http}/healthz`,
      other,
    );
    assert.equal(fromTheirVm, '200');
    assert.ok(Date.now() - started < 30_000, `answered in ${Date.now() - started} ms`);
  });
});
