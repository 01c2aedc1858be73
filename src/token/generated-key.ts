import { createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { ExectlError } from '../errors.js';
import { encodeKeyBlob } from './key-blob.js';
import { publicKeyFromBlob, type Signer } from './public-key.js';
import { wireSignature } from './wire-signature.js';

/**
 * A fresh ed25519 key pair made with node:crypto, as a one-shot {@link Signer}. The private key
 * exists only in memory, is never exported or written anywhere, and is dropped by the first
 * `sign` call: a second call fails. It serves `ssh-key generate-api-key`, where the server
 * registers the public half, signs one token and throws the private half away — so the key can
 * never sign anything else, and removing it revokes exactly that token.
 *
 * @param comment the comment of the public key's OpenSSH line (`toOpenSsh()`), e.g. the label.
 * @returns a signer whose `source` is `generated`; `sign` resolves to an `ssh-ed25519` wire
 *   signature, exactly what `ssh-keygen -Y sign` would make with the same key.
 * @throws ExectlError `key_error` from `sign` when called a second time.
 *
 * @example
 * const signer = generateOneShotEd25519Signer('api-key-2025-03-01');
 * const token = await mintSvc0('{"exp":1900000000}', signer, 'v0@localhost');
 * // signer.publicKey stays usable; signer.sign(...) now rejects.
 */
export function generateOneShotEd25519Signer(comment: string): Signer {
  let privateKey: KeyObject | undefined = generateKeyPairSync('ed25519').privateKey;
  const blob = encodeKeyBlob(createPublicKey(privateKey).export({ format: 'jwk' }));
  return {
    publicKey: publicKeyFromBlob(blob, comment),
    source: 'generated',
    async sign(data) {
      const key = privateKey;
      if (key === undefined) {
        throw new ExectlError('key_error', 'the generated key has already signed and is gone');
      }
      privateKey = undefined;
      return wireSignature('ssh-ed25519', sign(null, data, key));
    },
  };
}
