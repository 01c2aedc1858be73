// Which connections count as one client address for the per-address limits (SPEC §7).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  clientAddressKey,
  accountKeyOf,
  clientKeyOf,
  markVmConnection,
  vmOriginOf,
  vmClientKey,
} from '../../../../src/service/rules/client-address.js';

test('clientAddressKey: IPv4 as it is, IPv6 by its /64, a unix socket as local', () => {
  const cases: [string | undefined, string][] = [
    ['127.0.0.1', '127.0.0.1'],
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['::FFFF:127.0.0.2', '127.0.0.2'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::', '2001:db8:1:2::/64'],
    ['2001:DB8::1', '2001:db8:0:0::/64'],
    ['2001:db8::2:0:0:1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['a::b:c:d:e:192.0.2.1', 'a:0:b:c::/64'],
    [undefined, 'local'],
  ];
  for (const [address, key] of cases) assert.equal(clientAddressKey(address), key, address);
});

test('clientKeyOf: a connection a VM opened counts as its VM, TLS over it too, others by address', () => {
  const fromVm = { remoteAddress: '127.0.0.1' };
  const tlsOverIt = { remoteAddress: '127.0.0.1', _parent: fromVm };
  const fromHost = { remoteAddress: '127.0.0.1' };
  markVmConnection(fromVm, { vmId: 12, accountId: 3 });
  assert.equal(clientKeyOf(fromVm), vmClientKey(12));
  assert.equal(clientKeyOf(fromVm), 'vm:12');
  assert.equal(clientKeyOf(tlsOverIt), 'vm:12');
  assert.equal(clientKeyOf(fromHost), '127.0.0.1');
  assert.equal(clientKeyOf({ remoteAddress: '::ffff:10.0.0.1' }), '10.0.0.1');
  // Its account, for the cap on all of one account's VMs; the VM itself, for reflection.
  assert.deepEqual(
    [accountKeyOf(fromVm), accountKeyOf(tlsOverIt), accountKeyOf(fromHost)],
    ['account:3', 'account:3', undefined],
  );
  assert.deepEqual(vmOriginOf(tlsOverIt), { vmId: 12, accountId: 3 });
  assert.equal(vmOriginOf(fromHost), undefined);
});
