// Which connections count as one client address for the per-address limits (SPEC §7).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  clientAddressKey,
  VM_RELAY_ADDRESS,
} from '../../../../src/service/rules/client-address.js';

test('clientAddressKey: IPv4 as it is, IPv6 by its /64, the VM relay as one', () => {
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
    [undefined, VM_RELAY_ADDRESS],
  ];
  for (const [address, key] of cases) assert.equal(clientAddressKey(address), key, address);
});
