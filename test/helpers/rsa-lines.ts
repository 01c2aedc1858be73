// RSA public key lines of any size and exponent, without generating a key pair (a 16384-bit
// one takes minutes): parsing and registration never look at whether the modulus factors.
import { randomBytes } from 'node:crypto';
import { encodeKeyBlob } from '../../src/token/key-blob.js';

/** A `ssh-rsa` line whose modulus has exactly `bits` bits (a multiple of 8) and exponent `e`. */
export function rsaLine(bits: number, e: bigint = 65537n, comment = 'big'): string {
  const n = randomBytes(bits / 8);
  n[0]! |= 0x80;
  n[n.length - 1]! |= 1;
  let hex = e.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  const blob = encodeKeyBlob({
    kty: 'RSA',
    n: n.toString('base64url'),
    e: Buffer.from(hex, 'hex').toString('base64url'),
  });
  return `ssh-rsa ${blob.toString('base64')} ${comment}`;
}
