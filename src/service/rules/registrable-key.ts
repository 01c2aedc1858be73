// Which public keys the service registers (SPEC §7): every account key arrives through here,
// whether from `ssh-key add`, a seed, the first start or `serve accounts add`.
import { ExectlError } from '../../errors.js';
import { parsePublicKey, rsaPublicExponent, type PublicKey } from '../../token/keys.js';

/** RSA verification costs grow with the modulus: past this, each bad token is a small DoS. */
const MAX_REGISTERED_RSA_BITS = 8192;
/** Verification raises to the public exponent: keys use 65537; a huge one costs per bit. */
const MAX_RSA_EXPONENT = 2n ** 32n;

/**
 * Parses a public key line offered for registration: any key the token library reads, except
 * RSA keys that would make each signature check costly (over 8192 bits, or a public exponent
 * over 2^32). Failures are `key_error`, as the parser's own, so each caller words them alike.
 *
 * @throws ExectlError `key_error` with the parser's sentence, `RSA key of N bits is too large
 *   (at most 8192)` or `RSA public exponent is too large (at most 2^32)`.
 */
export function parseRegistrableKey(line: string): PublicKey {
  const key = parsePublicKey(line);
  if (key.type !== 'ssh-rsa') return key;
  const hint = 'use an ed25519 key (ssh-keygen -t ed25519), or RSA of 2048 to 8192 bits';
  if (key.bits > MAX_REGISTERED_RSA_BITS) {
    throw new ExectlError(
      'key_error',
      `RSA key of ${key.bits} bits is too large (at most ${MAX_REGISTERED_RSA_BITS})`,
      { hint },
    );
  }
  if ((rsaPublicExponent(key) ?? 0n) > MAX_RSA_EXPONENT) {
    throw new ExectlError('key_error', 'RSA public exponent is too large (at most 2^32)', { hint });
  }
  return key;
}
