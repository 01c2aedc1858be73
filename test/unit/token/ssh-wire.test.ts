import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { leftPad, SshReader, sshMpint, sshString, sshUint32 } from '../../../src/token/ssh-wire.js';

const hex = (h: string): Buffer => Buffer.from(h.replace(/ /g, ''), 'hex');
const fail = (): Error => new Error('wire');

describe('sshMpint (RFC 4251 §5 examples)', () => {
  const cases: [string, string][] = [
    ['', '00000000'],
    ['00', '00000000'],
    ['09a378f9b2e332a7', '00000008 09a378f9b2e332a7'],
    ['80', '00000002 0080'],
    ['0000ff', '00000002 00ff'],
    ['7f', '00000001 7f'],
  ];
  for (const [magnitude, encoded] of cases) {
    test(`0x${magnitude || '(empty)'} → ${encoded}`, () => {
      assert.deepEqual(sshMpint(hex(magnitude)), hex(encoded));
    });
  }

  test('round-trips through SshReader.mpint as the magnitude without leading zeros', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        const read = new SshReader(sshMpint(bytes), fail).mpint();
        const start = bytes.findIndex((b) => b !== 0);
        assert.deepEqual(read, Buffer.from(start < 0 ? [] : bytes.subarray(start)));
      }),
    );
  });
});

describe('SshReader', () => {
  test('reads uint32, string, text and byte in order, then reaches the end', () => {
    const data = Buffer.concat([sshUint32(7), sshString('ns'), sshString(hex('0102')), hex('ff')]);
    const reader = new SshReader(data, fail);
    assert.equal(reader.uint32(), 7);
    assert.equal(reader.text(), 'ns');
    assert.deepEqual(reader.string(), hex('0102'));
    assert.equal(reader.atEnd, false);
    assert.equal(reader.byte(), 0xff);
    reader.end();
  });

  const failures: [string, (r: SshReader) => unknown, string][] = [
    ['a truncated uint32', (r) => r.uint32(), '000000'],
    ['a string longer than the data', (r) => r.string(), '00000005 01020304'],
    ['a huge length', (r) => r.string(), 'ffffffff 00'],
    ['a negative mpint', (r) => r.mpint(), '00000001 80'],
    ['text that is not UTF-8', (r) => r.text(), '00000002 c328'],
    ['trailing bytes', (r) => (r.string(), r.end()), '00000000 00'],
    ['raw past the end', (r) => r.raw(3), '0102'],
  ];
  for (const [name, read, data] of failures) {
    test(`throws the caller's error on ${name}`, () => {
      assert.throws(() => read(new SshReader(hex(data), fail)), { message: 'wire' });
    });
  }

  test('tolerates redundant leading zeros in an mpint, as OpenSSH does', () => {
    assert.deepEqual(new SshReader(hex('00000003 000001'), fail).mpint(), hex('01'));
  });

  test('reads from a view into a larger buffer without looking outside it', () => {
    const backing = hex('ffffffff 00000001 41 ffffffff');
    const reader = new SshReader(backing.subarray(4, 9), fail);
    assert.equal(reader.text(), 'A');
    reader.end();
  });
});

describe('leftPad', () => {
  test('pads to the length, keeps an exact fit and refuses a longer input', () => {
    assert.deepEqual(leftPad(hex('0102'), 4, fail), hex('00000102'));
    assert.deepEqual(leftPad(hex('01020304'), 4, fail), hex('01020304'));
    assert.throws(() => leftPad(hex('0102030405'), 4, fail), { message: 'wire' });
  });
});
