// Every VM's own SSH address (SPEC §6a "Host names route SSH"): made from its id, read back from
// a socket's local address, and nothing else read as one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  MAX_ADDRESSED_VM_ID,
  vmIdAtAddress,
  vmSshAddress,
} from '../../../../src/service/rules/vm-ssh-address.js';

const ADDRESSES: [number, string | undefined][] = [
  [1, '127.77.0.1'],
  [255, '127.77.0.255'],
  [256, '127.77.1.0'],
  [65535, '127.77.255.255'],
  [65536, '127.78.0.0'],
  [MAX_ADDRESSED_VM_ID, '127.127.255.255'],
  [MAX_ADDRESSED_VM_ID + 1, undefined],
  [0, undefined],
  [-1, undefined],
  [1.5, undefined],
];

for (const [id, address] of ADDRESSES) {
  test(`vm ${id}: ${address ?? 'no address'}`, () => {
    assert.equal(vmSshAddress(id), address);
    if (address !== undefined) assert.equal(vmIdAtAddress(address), id);
  });
}

const NOT_OURS = [
  '127.0.0.1',
  '127.76.255.255',
  '127.128.0.1',
  '127.77.0.0',
  '127.077.0.1',
  '127.77.00.1',
  '127.77.0.256',
  ' 127.77.0.1',
  '127.77.0.1 ',
  '10.77.0.1',
  '::1',
  '::ffff:10.0.0.1',
  '',
];
for (const address of NOT_OURS) {
  test(`${JSON.stringify(address)} is no VM's address`, () => {
    assert.equal(vmIdAtAddress(address), undefined);
  });
}

test('a dual-stack listener sees the address mapped into IPv6: the same VM', () => {
  assert.equal(vmIdAtAddress('::ffff:127.77.1.2'), 258);
  assert.equal(vmIdAtAddress('::FFFF:127.77.1.2'), 258);
});

test('property: every id in range round-trips, and no two ids share an address', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: MAX_ADDRESSED_VM_ID }), (id) => {
      const address = vmSshAddress(id)!;
      assert.equal(vmIdAtAddress(address), id);
    }),
  );
});

test('property: any string is either no address or the address of exactly the id it reads as', () => {
  const dotted = fc
    .tuple(fc.nat(300), fc.nat(300), fc.nat(300), fc.nat(300))
    .map((parts) => parts.join('.'));
  fc.assert(
    fc.property(fc.oneof(fc.string(), dotted), (text) => {
      const id = vmIdAtAddress(text);
      if (id !== undefined) assert.equal(vmSshAddress(id), text.replace(/^::ffff:/i, ''));
    }),
  );
});
