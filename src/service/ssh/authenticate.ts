import ssh2 from 'ssh2';
import { fingerprintOf, parsePublicKey } from '../../token/keys.js';
import type { Store } from '../store/index.js';

/** One `publickey` request of SSH user authentication (RFC 4252 §7), as ssh2 parsed it. */
export interface PublicKeyAttempt {
  /** Key algorithm: `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa` (also for rsa-sha2-*). */
  algorithm: string;
  /** The public key blob the client offers. */
  keyBlob: Buffer;
  /** `sha256`/`sha512` for rsa-sha2-256/512; undefined otherwise (SHA-1 for ssh-rsa). */
  hashAlgorithm: string | undefined;
  /** Absent when the client only asks whether the key would be accepted. */
  proof?: {
    /** What the client signed: session id and the request, built by ssh2. */
    signedData: Buffer;
    /** The signature, in the form ssh2's `ParsedKey.verify` takes. */
    signature: Buffer;
  };
}

/**
 * `accept`: the key is registered and, when a signature came, it verified — for a query the
 * client then signs, for a signature the caller is authenticated as `fingerprint`.
 * `reject`: unregistered key, unsupported key, or a bad or SHA-1 signature.
 */
type AttemptVerdict = 'accept' | 'reject';

/**
 * Judges one public-key attempt against the registered keys only: the key must be found by
 * its SHA256 fingerprint, be byte-for-byte the registered key, and — when the client sent a
 * signature — the signature over ssh2's session data must verify with that key. RSA
 * signatures must use rsa-sha2-256/512: SHA-1 (`ssh-rsa`) is refused, as everywhere in
 * exectl. Never throws: anything unexpected is a rejection.
 */
export function judgePublicKeyAttempt(
  store: Pick<Store, 'findKeyByFingerprint'>,
  attempt: PublicKeyAttempt,
): AttemptVerdict {
  try {
    const record = store.findKeyByFingerprint(fingerprintOf(attempt.keyBlob));
    if (record === undefined) return 'reject';
    if (!parsePublicKey(record.publicKey).blob.equals(attempt.keyBlob)) return 'reject';
    const key = ssh2.utils.parseKey(attempt.keyBlob);
    if (key instanceof Error || Array.isArray(key) || key.type !== attempt.algorithm) {
      return 'reject';
    }
    if (key.type === 'ssh-rsa' && attempt.hashAlgorithm === undefined) return 'reject';
    const { proof } = attempt;
    if (proof === undefined) return 'accept';
    return key.verify(proof.signedData, proof.signature, attempt.hashAlgorithm) === true
      ? 'accept'
      : 'reject';
  } catch {
    return 'reject';
  }
}
