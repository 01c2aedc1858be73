import { ExectlError } from '../errors.js';
import { TokenError } from './errors.js';
import { joinSvc0 } from './format.js';
import { verifyWireSignature, type Signer } from './keys.js';
import { parsePermissions } from './permissions.js';
import { encodeSshSig, signedData } from './sshsig.js';

/**
 * Mints a svc0 token: checks `payload` against the permissions rules, signs exactly its UTF-8
 * bytes as an SSHSIG (hash sha512) for `namespace`, and joins payload and blob. The payload
 * is never re-serialised, so the token carries precisely the bytes given.
 *
 * @param payload the permissions JSON, e.g. from `serializePermissions`.
 * @param namespace e.g. `v0@localhost`; the token verifies under this namespace only.
 * @throws TokenError `bad_permissions` for a payload that breaks a rule; `too_large` when the
 *   token would exceed 8192 bytes.
 * @throws ExectlError `key_error` when signing fails or yields a signature that does not verify
 *   (e.g. an agent answering an RSA request with SHA-1).
 */
export async function mintSvc0(
  payload: string,
  signer: Signer,
  namespace: string,
): Promise<string> {
  const bytes = Buffer.from(payload, 'utf8');
  // Lone surrogates would silently turn into U+FFFD: the token would not say what was asked.
  if (bytes.toString('utf8') !== payload) {
    throw new TokenError('bad_permissions', 'permissions JSON is not valid UTF-8');
  }
  parsePermissions(bytes);
  const data = signedData(namespace, 'sha512', bytes);
  const signature = await signer.sign(data);
  if (!verifyWireSignature(signer.publicKey, data, signature)) {
    throw new ExectlError('key_error', `the signature made with ${signer.source} does not verify`, {
      hint: 'use an ed25519 key, or an ssh-agent recent enough to sign RSA with rsa-sha2-512',
    });
  }
  const sigblob = encodeSshSig({
    publicKey: signer.publicKey.blob,
    namespace,
    reserved: Buffer.alloc(0),
    hashAlgorithm: 'sha512',
    signature,
  });
  return joinSvc0(bytes, sigblob);
}
