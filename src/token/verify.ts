import { TokenError } from './errors.js';
import { splitSvc0 } from './format.js';
import { fingerprintOf, verifyWireSignature, type PublicKey } from './keys.js';
import { parsePermissions, type Permissions } from './permissions.js';
import { parseSshSig, signedData, type HashAlgorithm } from './sshsig.js';

/** What the verifier needs from its caller. */
export interface VerifyOptions {
  /** The namespace the token must be signed for, e.g. `v0@localhost`. */
  namespace: string;
  /** The current time in unix seconds. */
  nowSeconds: number;
  /** The registered key with this SHA256 fingerprint, if any. */
  findKey(fingerprint: string): PublicKey | undefined;
}

/** A token that passed every check; only now may its permissions be trusted. */
export interface VerifiedToken {
  permissions: Permissions;
  payload: Buffer;
  /** Fingerprint of the registered key that signed it. */
  fingerprint: string;
  namespace: string;
  hashAlgorithm: HashAlgorithm;
}

/**
 * Checks the time window of already verified permissions: now > exp is `expired`, now < nbf is
 * `not yet valid`. Callers that cache a verification must call this again on every use.
 *
 * @throws TokenError `expired` (`invalid token: expired`) or `not_yet_valid`
 *   (`invalid token: not yet valid`).
 */
export function checkTimeWindow(p: Permissions, nowSeconds: number): void {
  if (p.exp !== undefined && nowSeconds > p.exp) throw new TokenError('expired', 'expired');
  if (p.nbf !== undefined && nowSeconds < p.nbf) {
    throw new TokenError('not_yet_valid', 'not yet valid');
  }
}

function rejected(logDetail: string): TokenError {
  return new TokenError('rejected', undefined, logDetail);
}

/**
 * Verifies a svc0 token, SPEC §1.5 steps 3–5 in this order:
 * 3. structure — size, prefix, split, base64url, permissions rules, SSHSIG layout;
 * 4. time — `expired`, then `not yet valid`;
 * 5. trust — the blob's key must be registered (looked up by SHA256 fingerprint) and equal to
 *    the registered key, the blob's namespace must be `opts.namespace`, and the signature over
 *    exactly the payload bytes must verify with the REGISTERED key.
 * Every step-5 failure is the same `invalid token`, with the real cause only in `logDetail`.
 *
 * @throws TokenError — structural reasons for step 3, `expired`/`not_yet_valid` for step 4,
 *   `rejected` for step 5. Never another error for any input string.
 */
export function verifySvc0(token: string, opts: VerifyOptions): VerifiedToken {
  const { payload, sigblob } = splitSvc0(token);
  const permissions = parsePermissions(payload);
  const sig = parseSshSig(sigblob);
  checkTimeWindow(permissions, opts.nowSeconds);

  const fingerprint = fingerprintOf(sig.publicKey);
  const registered = opts.findKey(fingerprint);
  if (registered === undefined) throw rejected(`key ${fingerprint} is not registered`);
  if (!registered.blob.equals(sig.publicKey)) {
    throw rejected(`registered key ${fingerprint} differs from the signing key`);
  }
  if (sig.namespace !== opts.namespace) {
    throw rejected(`namespace ${JSON.stringify(sig.namespace)} is not ${opts.namespace}`);
  }
  const data = signedData(opts.namespace, sig.hashAlgorithm, payload);
  if (!verifyWireSignature(registered, data, sig.signature)) {
    throw rejected(`bad ${JSON.stringify(sig.signatureAlgorithm)} signature by ${fingerprint}`);
  }
  return {
    permissions,
    payload,
    fingerprint,
    namespace: opts.namespace,
    hashAlgorithm: sig.hashAlgorithm,
  };
}
