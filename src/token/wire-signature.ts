import { createPublicKey, hash, verify, type KeyObject } from 'node:crypto';
import {
  decodeKeyBlob,
  SK_ECDSA,
  SK_ED25519,
  type DecodedKeyBlob,
  type EcCurve,
} from './key-blob.js';
import type { PublicKey } from './public-key.js';
import { leftPad, SshReader, sshMpint, sshString } from './ssh-wire.js';

/** Bounds the cache: the server registers few keys, but callers may verify arbitrary ones. */
const MAX_CACHED_KEYS = 1024;

interface VerifyingKey {
  decoded: DecodedKeyBlob;
  keyObject: KeyObject;
}

/** Importing a key into OpenSSL costs more than an ed25519 verification, so do it once. */
const verifyingKeys = new Map<string, VerifyingKey>();

function verifyingKeyFor(blob: Buffer): VerifyingKey {
  const id = blob.toString('base64');
  const cached = verifyingKeys.get(id);
  if (cached !== undefined) return cached;
  const decoded = decodeKeyBlob(blob);
  const keyObject = createPublicKey({ key: decoded.jwk, format: 'jwk' });
  if (verifyingKeys.size >= MAX_CACHED_KEYS) {
    verifyingKeys.delete(verifyingKeys.keys().next().value as string);
  }
  const entry = { decoded, keyObject };
  verifyingKeys.set(id, entry);
  return entry;
}

/** The signature algorithm names a key type may sign with (never ssh-rsa/SHA-1). */
function allowedAlgorithms(type: string): readonly string[] {
  return type === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256'] : [type];
}

/** Any structural problem only ends up as `false`, so the error itself carries nothing. */
function bad(): Error {
  return new Error('bad signature');
}

/** ECDSA wire signature body (mpint r, mpint s) → IEEE P1363 r‖s of the curve's size. */
function ecdsaToP1363(body: Buffer, curve: EcCurve): Buffer {
  const reader = new SshReader(body, bad);
  const r = reader.mpint();
  const s = reader.mpint();
  reader.end();
  return Buffer.concat([leftPad(r, curve.size, bad), leftPad(s, curve.size, bad)]);
}

/** What a FIDO authenticator signs: SHA256(app) ‖ flags ‖ counter ‖ SHA256(data). */
function securityKeyMessage(
  application: string,
  flags: number,
  counter: number,
  data: Uint8Array,
): Buffer {
  const tail = Buffer.alloc(5);
  tail.writeUInt8(flags, 0);
  tail.writeUInt32BE(counter, 1);
  return Buffer.concat([
    hash('sha256', application, 'buffer'),
    tail,
    hash('sha256', data, 'buffer'),
  ]);
}

function checkWireSignature(key: PublicKey, data: Uint8Array, wire: Uint8Array): boolean {
  const { decoded, keyObject } = verifyingKeyFor(key.blob);
  const reader = new SshReader(wire, bad);
  const algorithm = reader.text();
  const raw = reader.string();
  let message: Uint8Array = data;
  if (decoded.type === SK_ED25519 || decoded.type === SK_ECDSA) {
    const flags = reader.byte();
    const counter = reader.uint32();
    // The flags are signed but not judged, exactly as `ssh-keygen -Y verify` does (measured on
    // OpenSSH 9.2): a key made with no-touch-required signs without the user-presence bit.
    message = securityKeyMessage(decoded.application ?? '', flags, counter, data);
  }
  reader.end();
  if (!allowedAlgorithms(decoded.type).includes(algorithm)) return false;
  switch (decoded.family) {
    case 'ed25519':
      return raw.length === 64 && verify(null, message, keyObject, raw);
    case 'ecdsa': {
      const curve = decoded.curve as EcCurve;
      const p1363 = ecdsaToP1363(raw, curve);
      return verify(curve.hash, message, { key: keyObject, dsaEncoding: 'ieee-p1363' }, p1363);
    }
    case 'rsa': {
      // OpenSSH may send S shorter than the modulus; OpenSSL wants it full length.
      const padded = leftPad(raw, Math.ceil(decoded.bits / 8), bad);
      return verify(algorithm === 'rsa-sha2-512' ? 'sha512' : 'sha256', message, keyObject, padded);
    }
  }
}

/**
 * Checks an SSH wire signature (`string alg, string sig[, byte flags, uint32 counter]`) over
 * `data` with `key`, using node:crypto and one cached KeyObject per key blob. Accepts
 * ssh-ed25519, ecdsa-sha2-nistp256/384/521 (curve's own hash), rsa-sha2-256/512 for ssh-rsa
 * keys (never SHA-1), and sk-* signatures (flags and counter covered, not judged — as ssh-keygen does).
 *
 * @returns true only for a valid signature; false — never an exception — for anything else.
 */
export function verifyWireSignature(
  key: PublicKey,
  data: Uint8Array,
  wireSignature: Uint8Array,
): boolean {
  try {
    return checkWireSignature(key, data, wireSignature);
  } catch {
    return false;
  }
}

/** Wraps a raw ed25519 or RSA signature as an SSH wire signature. */
export function wireSignature(algorithm: string, raw: Uint8Array): Buffer {
  return Buffer.concat([sshString(algorithm), sshString(raw)]);
}

/** Converts an IEEE P1363 ECDSA signature (r‖s) into its SSH wire signature. */
export function ecdsaWireSignature(curve: EcCurve, p1363: Uint8Array): Buffer {
  const r = p1363.subarray(0, curve.size);
  const s = p1363.subarray(curve.size);
  return wireSignature(`ecdsa-sha2-${curve.sshName}`, Buffer.concat([sshMpint(r), sshMpint(s)]));
}
