// Which VM an envelope recipient names (SPEC §4b): a table of addresses, and a property over
// any text a sender may put in RCPT TO.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { vmOfRecipient } from '../../../../src/service/mail/recipient.js';

const CASES: [address: string, vm: string | undefined][] = [
  ['ada@web.localhost', 'web'],
  ['Any.Name+tag@WEB.LocalHost', 'web'],
  ['x@my-vm2.localhost', 'my-vm2'],
  ['"quoted"@web.localhost', 'web'],
  ['x@web.localhost.', undefined],
  ['x@localhost', undefined],
  ['x@.localhost', undefined],
  ['x@a.b.localhost', undefined],
  ['x@Web_1.localhost', undefined],
  ['x@web.example.com', undefined],
  ['x@webxlocalhost', undefined],
  ['@web.localhost', undefined],
  ['web.localhost', undefined],
  ['a b@web.localhost', undefined],
  ['a<b@web.localhost', undefined],
  ['ü@web.localhost', undefined],
  [`${'x'.repeat(65)}@web.localhost`, undefined],
  [`${'x'.repeat(64)}@web.localhost`, 'web'],
];

test('recipients: the VM of each address, or none', () => {
  for (const [address, vm] of CASES) {
    assert.equal(vmOfRecipient(address, 'localhost'), vm, address);
  }
});

test('property: any text names no VM, or a VM name whose address it is', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (address) => {
      const vm = vmOfRecipient(address, 'localhost');
      if (vm === undefined) return;
      assert.match(vm, /^[a-z][a-z0-9-]{0,61}[a-z0-9]$/);
      assert.ok(address.toLowerCase().endsWith(`@${vm}.localhost`));
      assert.ok(!/[\s<>\u0000-\u001f\u007f-\uffff]/.test(address), address);
    }),
    { numRuns: 2000 },
  );
});
