import { ExectlError } from '../errors.js';
import { splitSvc0 } from './format.js';
import { publicKeyFromBlob, type PublicKey } from './keys.js';
import { parsePermissions, type Permissions } from './permissions.js';
import { parseSshSig, type SshSignature } from './sshsig.js';

/** What a svc0 token claims, decoded but NOT verified. */
export interface DecodedSvc0 {
  payload: Buffer;
  permissions: Permissions;
  signature: SshSignature;
  /** The key the blob names; undefined when that key is of a type exectl does not support. */
  signer: PublicKey | undefined;
  /** Size of the whole token string in UTF-8 bytes. */
  sizeBytes: number;
}

/**
 * Decodes a svc0 token WITHOUT VERIFYING IT. Nothing returned here is trustworthy: the
 * signature is not checked, the key is not looked up, the namespace and the time window are
 * not checked — anyone can forge every field. Use it only to show a token to a person
 * (`exectl inspect`); to decide anything, use `verifySvc0` from verify.ts.
 *
 * Checks structure only (size, prefix, base64url, permissions rules, SSHSIG layout).
 *
 * @throws TokenError with a structural reason (`too_large`, `malformed`, `bad_base64url`,
 *   `bad_permissions`, `bad_signature_blob`).
 */
export function decodeSvc0Unverified(token: string): DecodedSvc0 {
  const { payload, sigblob } = splitSvc0(token);
  const permissions = parsePermissions(payload);
  const signature = parseSshSig(sigblob);
  let signer: PublicKey | undefined;
  try {
    signer = publicKeyFromBlob(signature.publicKey);
  } catch (error) {
    if (!(error instanceof ExectlError)) throw error;
  }
  return { payload, permissions, signature, signer, sizeBytes: Buffer.byteLength(token, 'utf8') };
}
