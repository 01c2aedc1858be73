import type { JsonWebKey } from 'node:crypto';
import { ExectlError } from '../errors.js';
import { SshReader, sshMpint, sshString } from './ssh-wire.js';

/** An ECDSA curve as OpenSSH names it, with what node:crypto needs to use it. */
export interface EcCurve {
  sshName: 'nistp256' | 'nistp384' | 'nistp521';
  jwkName: 'P-256' | 'P-384' | 'P-521';
  /** Bytes of one coordinate (and of r, s and d). */
  size: number;
  /** OpenSSH signs ECDSA with the curve's own hash, whatever the SSHSIG hash is. */
  hash: 'sha256' | 'sha384' | 'sha512';
  bits: number;
}

export const EC_CURVES: readonly EcCurve[] = [
  { sshName: 'nistp256', jwkName: 'P-256', size: 32, hash: 'sha256', bits: 256 },
  { sshName: 'nistp384', jwkName: 'P-384', size: 48, hash: 'sha384', bits: 384 },
  { sshName: 'nistp521', jwkName: 'P-521', size: 66, hash: 'sha512', bits: 521 },
];

const MIN_RSA_BITS = 2048;
/** OpenSSH's own ceiling; bigger moduli only make verification a denial of service. */
const MAX_RSA_BITS = 16384;

export const SK_ED25519 = 'sk-ssh-ed25519@openssh.com';
export const SK_ECDSA = 'sk-ecdsa-sha2-nistp256@openssh.com';

/** A public key blob decoded into the parts node:crypto needs. */
export interface DecodedKeyBlob {
  /** The key type string at the start of the blob, e.g. `ssh-ed25519`. */
  type: string;
  family: 'ed25519' | 'ecdsa' | 'rsa';
  /** Public JWK for `crypto.createPublicKey({ key, format: 'jwk' })`. */
  jwk: JsonWebKey;
  bits: number;
  /** For ECDSA keys. */
  curve?: EcCurve;
  /** For FIDO security keys (`sk-…@openssh.com`): the application string, e.g. `ssh:`. */
  application?: string;
}

const UNSUPPORTED_HINT = 'use an ed25519, ECDSA or RSA (at least 2048 bits) SSH key';

function invalidKey(): ExectlError {
  return new ExectlError('key_error', 'invalid SSH public key', { hint: UNSUPPORTED_HINT });
}

function b64u(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** Number of significant bits of a big-endian magnitude without leading zero bytes. */
function bitLength(magnitude: Buffer): number {
  if (magnitude.length === 0) return 0;
  return (magnitude.length - 1) * 8 + (magnitude[0] as number).toString(2).length;
}

/**
 * The public JWK of an EC point in SSH's uncompressed form (0x04 | X | Y, the only one in SSH
 * key blobs and private keys).
 *
 * @throws the error made by `fail` (by default `invalid SSH public key`) for any other form.
 */
export function decodeEcPoint(
  point: Uint8Array,
  curve: EcCurve,
  fail: () => Error = invalidKey,
): JsonWebKey {
  if (point.length !== 1 + 2 * curve.size || point[0] !== 0x04) throw fail();
  return {
    kty: 'EC',
    crv: curve.jwkName,
    x: b64u(point.subarray(1, 1 + curve.size)),
    y: b64u(point.subarray(1 + curve.size)),
  };
}

/**
 * Decodes an SSH public key blob (RFC 4253 §6.6 and OpenSSH's PROTOCOL.u2f for sk keys).
 * Supported: ssh-ed25519, ecdsa-sha2-nistp256/384/521, ssh-rsa (2048–16384 bits),
 * sk-ssh-ed25519@openssh.com, sk-ecdsa-sha2-nistp256@openssh.com.
 *
 * @throws ExectlError `key_error` for an unsupported type, a bad structure or a small RSA key.
 */
export function decodeKeyBlob(blob: Uint8Array): DecodedKeyBlob {
  const reader = new SshReader(blob, invalidKey);
  const type = reader.text();
  const decoded = decodeKeyBody(type, reader);
  reader.end();
  return decoded;
}

function decodeKeyBody(type: string, reader: SshReader): DecodedKeyBlob {
  if (type === 'ssh-ed25519' || type === SK_ED25519) {
    const pk = reader.string();
    if (pk.length !== 32) throw invalidKey();
    const jwk: JsonWebKey = { kty: 'OKP', crv: 'Ed25519', x: b64u(pk) };
    if (type === 'ssh-ed25519') return { type, family: 'ed25519', jwk, bits: 256 };
    return { type, family: 'ed25519', jwk, bits: 256, application: reader.text() };
  }
  const ecType = type === SK_ECDSA ? 'ecdsa-sha2-nistp256' : type;
  const curve = EC_CURVES.find((c) => ecType === `ecdsa-sha2-${c.sshName}`);
  if (curve !== undefined) {
    if (reader.text() !== curve.sshName) throw invalidKey();
    const jwk = decodeEcPoint(reader.string(), curve);
    const base = { type, family: 'ecdsa' as const, jwk, bits: curve.bits, curve };
    return type === SK_ECDSA ? { ...base, application: reader.text() } : base;
  }
  if (type === 'ssh-rsa') {
    const e = reader.mpint();
    const n = reader.mpint();
    const bits = bitLength(n);
    if (e.length === 0 || bits > MAX_RSA_BITS) throw invalidKey();
    if (bits < MIN_RSA_BITS) {
      throw new ExectlError('key_error', `RSA key of ${bits} bits is too small`, {
        hint: `use an RSA key of at least ${MIN_RSA_BITS} bits, or better: ssh-keygen -t ed25519`,
      });
    }
    return { type, family: 'rsa', jwk: { kty: 'RSA', n: b64u(n), e: b64u(e) }, bits };
  }
  throw new ExectlError('key_error', `unsupported SSH key type "${type}"`, {
    hint: UNSUPPORTED_HINT,
  });
}

/**
 * Encodes the SSH public key blob of a plain (non-sk) public JWK as node:crypto exports it.
 *
 * @throws ExectlError `key_error` for a JWK of another kind.
 */
export function encodeKeyBlob(jwk: JsonWebKey): Buffer {
  const bytes = (field: unknown): Buffer => Buffer.from(String(field), 'base64url');
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') {
    return Buffer.concat([sshString('ssh-ed25519'), sshString(bytes(jwk.x))]);
  }
  const curve = EC_CURVES.find((c) => jwk.kty === 'EC' && c.jwkName === jwk.crv);
  if (curve !== undefined) {
    const point = Buffer.concat([Buffer.of(0x04), bytes(jwk.x), bytes(jwk.y)]);
    return Buffer.concat([
      sshString(`ecdsa-sha2-${curve.sshName}`),
      sshString(curve.sshName),
      sshString(point),
    ]);
  }
  if (jwk.kty === 'RSA') {
    return Buffer.concat([sshString('ssh-rsa'), sshMpint(bytes(jwk.e)), sshMpint(bytes(jwk.n))]);
  }
  throw new ExectlError('key_error', `unsupported key kind "${String(jwk.kty)}"`, {
    hint: UNSUPPORTED_HINT,
  });
}
