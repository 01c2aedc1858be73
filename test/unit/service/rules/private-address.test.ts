// The private-address rule of integration targets (SPEC §6), one row per kind of address.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  broadcastAddressOf,
  isPrivateAddress,
} from '../../../../src/service/rules/private-address.js';

const HOST = ['192.0.2.2', '192.0.2.255', 'fd00::2', 'fe80::fc:ff:fe00:1'];

test('isPrivateAddress: loopback, link-local, unspecified, metadata and own are private', () => {
  const cases: [address: string, isPrivate: boolean, why: string][] = [
    ['127.0.0.1', true, 'loopback'],
    ['127.0.0.2', true, 'loopback /8'],
    ['127.255.255.255', true, 'loopback /8'],
    ['0.0.0.0', true, 'unspecified'],
    ['0.1.2.3', true, '"this network" 0/8'],
    ['169.254.169.254', true, 'link-local: cloud metadata'],
    ['169.254.0.1', true, 'link-local'],
    ['100.100.100.200', true, 'Alibaba Cloud metadata'],
    ['::1', true, 'IPv6 loopback'],
    ['[::1]', true, 'as a URL writes it'],
    ['::', true, 'IPv6 unspecified'],
    ['::7f00:1', true, 'IPv4-compatible ::127.0.0.1'],
    ['::808:808', true, 'IPv4-compatible: deprecated, all of ::/96'],
    ['::ffff:127.0.0.1', true, 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', true, 'IPv4-mapped loopback, hex'],
    ['::ffff:a9fe:a9fe', true, 'IPv4-mapped metadata'],
    ['fe80::1', true, 'IPv6 link-local'],
    ['fe80::1%eth0', true, 'with a zone'],
    ['febf:ffff::1', true, 'end of fe80::/10'],
    ['fd00:ec2::254', true, 'AWS metadata over IPv6'],
    ['192.0.2.2', true, "the host's own"],
    ['::ffff:192.0.2.2', true, "the host's own, IPv4-mapped"],
    ['fd00::2', true, "the host's own IPv6"],
    ['fe80::fc:ff:fe00:1', true, "the host's own link-local"],
    ['64:ff9b::7f00:1', true, 'NAT64 of 127.0.0.1'],
    ['64:ff9b::169.254.169.254', true, 'NAT64 of the metadata service'],
    ['64:ff9b::c000:202', true, "NAT64 of the host's own"],
    ['2002:7f00:1::', true, '6to4 of 127.0.0.1'],
    ['2002:a9fe:a9fe:1::5', true, '6to4 of the metadata service'],
    ['224.0.0.1', true, 'multicast: all hosts'],
    ['224.0.0.0', true, 'start of 224/4'],
    ['239.255.255.250', true, 'multicast: SSDP'],
    ['239.255.255.255', true, 'end of 224/4'],
    ['240.0.0.1', true, 'reserved 240/4'],
    ['255.255.255.255', true, 'limited broadcast'],
    ['192.0.2.255', true, "the broadcast of the host's own network (given with the host's)"],
    ['::ffff:224.0.0.1', true, 'IPv4-mapped multicast'],
    ['::ffff:255.255.255.255', true, 'IPv4-mapped broadcast'],
    ['ff02::1', true, 'IPv6 all nodes'],
    ['ff05::1:3', true, 'IPv6 site-local DHCP servers'],
    ['ff0e::1', true, 'IPv6 global multicast'],
    ['64:ff9b::e000:1', true, 'NAT64 of 224.0.0.1'],
    ['2002:e000:1::', true, '6to4 of 224.0.0.1'],
    ['not-an-ip', true, 'unreadable: never connected to'],
    ['', true, 'empty'],
    ['8.8.8.8', false, 'public'],
    ['1.1.1.1', false, 'public'],
    ['::ffff:8.8.8.8', false, 'public, IPv4-mapped'],
    ['2606:4700:4700::1111', false, 'public IPv6'],
    ['10.1.2.3', false, 'RFC 1918: another machine of the network'],
    ['172.16.0.1', false, 'RFC 1918'],
    ['192.168.1.1', false, 'RFC 1918'],
    ['192.0.2.3', false, "the host's neighbour"],
    ['fd00::3', false, 'unique-local: another machine'],
    ['fec0::1', false, 'past fe80::/10'],
    ['100.100.100.201', false, 'beside the metadata address'],
    ['128.0.0.1', false, 'just past 127/8'],
    ['169.255.0.1', false, 'just past 169.254/16'],
    ['223.255.255.255', false, 'just before 224/4'],
    ['198.51.100.255', false, 'x.y.z.255 of a network not the host’s: may be an ordinary host'],
    ['10.0.0.255', false, 'an ordinary host of a 10.0/16'],
    ['feff::1', false, 'just before ff00::/8'],
    ['1.0.0.0', false, 'just past 0/8'],
    ['64:ff9b::808:808', false, 'NAT64 of a public address'],
    ['2002:808:808::1', false, '6to4 of a public address'],
  ];
  for (const [address, expected, why] of cases) {
    assert.equal(isPrivateAddress(address, HOST), expected, `${address} (${why})`);
  }
});

test("isPrivateAddress: the host's own addresses are those given, no others", () => {
  assert.equal(isPrivateAddress('192.0.2.2', []), false);
  assert.equal(isPrivateAddress('203.0.113.9', ['203.0.113.9']), true);
  assert.equal(isPrivateAddress('::ffff:203.0.113.9', ['203.0.113.9']), true);
  assert.equal(isPrivateAddress('2001:db8::9', ['2001:db8::9%eth0']), true);
});

test('broadcastAddressOf: the last address of an IPv4 network, none for IPv6, /31, /32', () => {
  const cases: [cidr: string, broadcast: string | undefined][] = [
    ['192.0.2.2/24', '192.0.2.255'],
    ['10.1.2.3/16', '10.1.255.255'],
    ['10.1.2.3/8', '10.255.255.255'],
    ['172.17.0.1/12', '172.31.255.255'],
    ['192.168.1.129/25', '192.168.1.255'],
    ['192.168.1.1/25', '192.168.1.127'],
    ['203.0.113.5/30', '203.0.113.7'],
    ['0.0.0.0/0', '255.255.255.255'],
    ['127.0.0.1/8', '127.255.255.255'],
    ['203.0.113.5/31', undefined],
    ['203.0.113.5/32', undefined],
    ['fd00::2/64', undefined],
    ['::1/128', undefined],
    ['192.0.2.2', undefined],
    ['256.0.0.1/24', undefined],
    ['not/24', undefined],
  ];
  for (const [cidr, broadcast] of cases) {
    assert.equal(broadcastAddressOf(cidr), broadcast, cidr);
  }
});
