// The host's network wall (vm/network/host-wall.ts): which ids it concerns, which name servers
// it lets DNS through to, and the one-line warning the server prints where it cannot hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EXECTL_IDS } from '../../../../../src/service/vm/id-ranges.js';
import {
  loadNetworkWall,
  resolverSet,
  wallIdSet,
  type WallSources,
} from '../../../../../src/service/vm/network/host-wall.js';

const [first, last] = EXECTL_IDS;

test('the ids: the helpers’ and every VM range, below 2^32 - 1, above every distribution’s users', () => {
  // 2^28 - 65536 (one helper id per range), to the last id of the last whole range of 65536.
  assert.deepEqual(EXECTL_IDS, [268369920, 4294901759]);
});

for (const [name, taken, expected] of [
  ['nothing taken', [], `{ ${first}-${last} }`],
  [
    'users far below',
    [
      [0, 1],
      [1000, 1001],
      [100000, 165536],
    ],
    `{ ${first}-${last} }`,
  ],
  [
    'a delegated range inside',
    [[300000000, 300065536]],
    `{ ${first}-299999999, 300065536-${last} }`,
  ],
  [
    'one id at each end',
    [
      [first, first + 1],
      [last, last + 1],
    ],
    `{ ${first + 1}-${last - 1} }`,
  ],
  ['a range across the start', [[first - 5, first + 10]], `{ ${first + 10}-${last} }`],
  [
    'all but one id',
    [
      [0, first],
      [first + 1, 2 ** 32],
    ],
    `{ ${first} }`,
  ],
  ['every id', [[0, 2 ** 32]], undefined],
] as const) {
  test(`wallIdSet: ${name}`, () => {
    assert.equal(wallIdSet(taken as unknown as Array<[number, number]>), expected);
  });
}

for (const [name, conf, expected] of [
  ['one server', 'nameserver 10.255.255.53\n', '{ 10.255.255.53 }'],
  ['a local resolver', 'nameserver 127.0.0.53\noptions edns0\n', '{ 127.0.0.53 }'],
  ['IPv6 ones left out', 'nameserver ::1\nnameserver 192.0.2.1\n', '{ 192.0.2.1 }'],
  [
    'comments, repeats, spaces',
    '# nameserver 1.1.1.1\n  nameserver\t9.9.9.9\nnameserver 9.9.9.9\n',
    '{ 9.9.9.9 }',
  ],
  ['none: libslirp then asks 127.0.0.1', 'search example.com\n', '{ 127.0.0.1 }'],
  ['no file', '', '{ 127.0.0.1 }'],
  ['no address', 'nameserver not-an-address\n', '{ 127.0.0.1 }'],
] as const) {
  test(`resolverSet: ${name}`, () => assert.equal(resolverSet(conf), expected));
}

const sources = (over: Partial<WallSources>): WallSources => ({
  nft: '/usr/sbin/nft',
  taken: async () => [],
  resolvConf: async () => 'nameserver 10.0.0.1\n',
  ...over,
});
const OPEN =
  "VMs can reach every host service listening on the host's own addresses (not loopback)";

test('no nft: the server names the missing guarantee and what to install', async () => {
  assert.equal(
    await loadNetworkWall(sources({ nft: undefined })),
    `${OPEN}: nft was not found in /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin (install nftables)`,
  );
});

test('an nft that fails: the warning names it and its exit code', async () => {
  assert.equal(
    await loadNetworkWall(sources({ nft: '/bin/false' })),
    `${OPEN}: exectl's nftables rule could not be loaded (/bin/false ended with exit code 1)`,
  );
});

test('an nft that keeps nothing: the check after loading says so', async () => {
  assert.equal(
    await loadNetworkWall(sources({ nft: '/bin/true' })),
    `${OPEN}: nft did not keep its rule`,
  );
});

test('every id of exectl’s a host user’s: no rule that would cut the user off', async () => {
  assert.equal(
    await loadNetworkWall(sources({ nft: '/bin/false', taken: async () => [[0, 2 ** 32]] })),
    `${OPEN}: every id of exectl's is a host user's`,
  );
});
