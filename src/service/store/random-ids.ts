import { randomBytes } from 'node:crypto';

// Lower-case RFC 4648 base32: no 0/1/8/9, so ids read aloud or copied by hand stay unambiguous.
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A public account id: `usr_` + 16 random base32 characters (80 bits). */
export function newUserId(): string {
  // 256 is a multiple of 32, so masking each byte keeps every character equally likely.
  const chars = [...randomBytes(16)].map((byte) => BASE32[byte & 31]);
  return `usr_${chars.join('')}`;
}

/** A VM's reflection secret: 32 random bytes, base64url without padding (43 characters). */
export function newReflectionSecret(): string {
  return randomBytes(32).toString('base64url');
}
