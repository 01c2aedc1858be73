// Integrations never reach host-only services (SPEC §6): a target at a loopback, link-local,
// unspecified, multicast or broadcast address, or at one of this host's own, is refused at `integrations add` whatever
// its spelling, and again at use (a record made before, or a name that resolves there now), so a
// secret-holding server on 127.0.0.1 answers no VM. `allowPrivateTargets` lifts the rule.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { startEchoUpstream, startReflectionHarness, type EchoUpstream } from './harness.js';
import type { ReflectionHarness } from './harness.js';

const HOST_SECRET = 'host-only-secret-7d1f';
const REASON =
  "it reaches a loopback, link-local, unspecified, multicast or broadcast address, or this host's own; " +
  'exectl serve --allow-private-targets allows that';

let hostOnly: EchoUpstream; // a server on 127.0.0.1 that hands its secret to whoever asks
let asked = 0;
let port: number;
before(async () => {
  hostOnly = await startEchoUpstream((_req, res) => {
    asked += 1;
    res.end(HOST_SECRET);
    return true;
  });
  port = Number(new URL(hostOnly.url).port);
});
after(() => hostOnly.close());

/** This host's own addresses, as URL hosts (`[...]` around IPv6). */
function ownHosts(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .map(({ address, family }) => (family === 'IPv6' ? `[${address}]` : address));
}

/** The broadcast address of each of this host's IPv4 networks (a directed broadcast). */
function ownBroadcasts(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter(({ family, cidr }) => family === 'IPv4' && cidr !== null && !cidr.endsWith('/32'))
    .map(({ cidr }) => {
      const [address, prefix] = cidr!.split('/');
      const n = address!.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
      const size = 2 ** (32 - Number(prefix));
      const broadcast = n - (n % size) + size - 1;
      return [24, 16, 8, 0].map((shift) => Math.floor(broadcast / 2 ** shift) % 256).join('.');
    });
}

/** [target as typed, scheme://host as the message shows it]: every spelling of a private host. */
function privateSpellings(): [string, string][] {
  const at = (host: string, shown = host): [string, string] => [
    `http://${host}:${port}/x`,
    `http://${shown}:${port}`,
  ];
  return [
    at('127.0.0.1'),
    at('127.0.0.2'),
    at('127.255.255.254'),
    at('localhost'),
    at('LOCALHOST.', 'localhost.'),
    at('api.localhost'),
    at('[::1]'),
    at('[0:0:0:0:0:0:0:1]', '[::1]'),
    at('0.0.0.0'),
    at('0', '0.0.0.0'),
    at('[::]'),
    // WHATWG URLs read numbers, hex, octal and short forms as IPv4, and percent-decode first.
    at('2130706433', '127.0.0.1'),
    at('0x7f000001', '127.0.0.1'),
    at('0x7f.1', '127.0.0.1'),
    at('0177.0.0.1', '127.0.0.1'),
    at('127.1', '127.0.0.1'),
    at('%31%32%37.0.0.1', '127.0.0.1'),
    at('[::ffff:127.0.0.1]', '[::ffff:7f00:1]'),
    at('[::127.0.0.1]', '[::7f00:1]'),
    at('169.254.169.254'),
    at('[fe80::1]'),
    at('[febf::1]'),
    ['http://169.254.169.254/latest/meta-data', 'http://169.254.169.254'],
    // Multicast and broadcast: every listener of the group or the link would answer.
    at('224.0.0.1'),
    at('239.255.255.250'),
    at('255.255.255.255'),
    at('240.0.0.1'),
    at('[ff02::1]'),
    at('[ff05::1:3]'),
    at('[::ffff:224.0.0.1]', '[::ffff:e000:1]'),
    // Loopback's other usual names, whether or not /etc/hosts lists them.
    at('ip6-localhost'),
    at('IP6-LOOPBACK', 'ip6-loopback'),
    at('localhost6'),
    ...ownBroadcasts().map((host) => at(host)),
    ...ownHosts().map((host) => at(host, new URL(`http://${host}`).hostname)),
  ];
}

describe('by default', () => {
  let h: ReflectionHarness;
  before(async () => {
    h = await startReflectionHarness();
    await h.exec('new --name vm1');
  });
  after(() => h.stop());

  test('integrations add refuses every spelling of a private target with one 422 line', async () => {
    for (const [target, shown] of privateSpellings()) {
      const r = await h.execRaw(`integrations add http-proxy --name p --target ${target}`);
      assert.equal(r.status, 422, `${target}: ${r.text}`);
      assert.deepEqual(JSON.parse(r.text), { error: `invalid target "${shown}": ${REASON}` });
    }
    const integrations = (await h.exec('integrations list')) as { name: string }[];
    assert.deepEqual(
      integrations.map((i) => i.name),
      ['reflection'],
      'nothing was created',
    );
  });

  test("a target on exectl's own listener is named as such, not only as private", async () => {
    const own = new URL(h.svc.service.endpoints.http);
    const r = await h.execRaw(`integrations add http-proxy --name own --target ${own.origin}`);
    assert.equal(r.status, 422);
    assert.deepEqual(JSON.parse(r.text), {
      error: `invalid target "${own.origin}": it is one of exectl's own listeners`,
    });
  });

  test('a private target in the store is refused at use: 403, the host server never asked', async () => {
    const account = h.svc.service.store.findAccountByEmail(h.svc.owner.email)!;
    // Written straight to the store, as a data folder from before this rule holds them;
    // `localhost` is resolved at use by the system resolver.
    const targets = [
      `http://localhost:${port}`,
      `http://127.0.0.1:${port}/x`,
      `http://2130706433:${port}`,
      `http://[::ffff:127.0.0.1]:${port}`,
      `http://224.0.0.1:${port}`,
      `http://255.255.255.255:${port}`,
      `http://[ff02::1]:${port}`,
      `http://ip6-localhost:${port}`,
    ];
    for (const [i, target] of targets.entries()) {
      const name = `old${i}`;
      h.svc.service.store.createIntegration({
        accountId: account.id,
        name,
        type: 'http-proxy',
        target,
        headers: ['Authorization: Bearer integration-secret'],
        attachments: ['vm:vm1'],
      });
      const r = await h.http(`${h.reflectionUrl('vm1')}/i/${name}/admin`, { method: 'POST' });
      assert.equal(r.status, 403, `${target}: ${r.text}`);
      assert.deepEqual(JSON.parse(r.text), {
        error: `integration "${name}" refused: ${REASON}`,
      });
      assert.ok(!r.text.includes(HOST_SECRET));
    }
    // And from a program in the VM, through the address it is given.
    const r = await h.execRaw(
      `ssh vm1 'curl -s -w " %{http_code}" "$EXECTL_REFLECTION_URL/i/old0/admin"'`,
    );
    assert.equal(r.status, 200, r.text);
    assert.equal(
      r.text,
      `${JSON.stringify({ error: `integration "old0" refused: ${REASON}` })}\n 403`,
    );
    assert.equal(asked, 0, 'the host-only server was never asked');
    assert.ok(h.svc.logs.every((line) => !line.includes(HOST_SECRET)));
  });
});

describe('with allowPrivateTargets', () => {
  let h: ReflectionHarness;
  before(async () => {
    h = await startReflectionHarness({ allowPrivateTargets: true });
    await h.exec('new --name vm1');
  });
  after(() => h.stop());

  test('the same targets are accepted, and forwarded to', async () => {
    for (const [i, [target]] of privateSpellings().entries()) {
      await h.exec(`integrations add http-proxy --name p${i} --target ${target}`);
    }
    await h.exec(`integrations add http-proxy --name local --target http://localhost:${port}`);
    await h.exec('integrations attach local vm:vm1');
    const askedBefore = asked;
    const r = await h.http(`${h.reflectionUrl('vm1')}/i/local/x`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.text, HOST_SECRET);
    assert.equal(asked, askedBefore + 1);
  });

  test("exectl's own listeners stay refused", async () => {
    const own = new URL(h.svc.service.endpoints.reflection);
    const r = await h.execRaw(`integrations add http-proxy --name own --target ${own.origin}`);
    assert.equal(r.status, 422);
    assert.deepEqual(JSON.parse(r.text), {
      error: `invalid target "${own.origin}": it is one of exectl's own listeners`,
    });
  });
});
