// What a private key file holds once read, whichever reader read it (the project's own for
// unencrypted OpenSSH keys, sshpk for the rest): node:crypto's private JWK and the key's kind.
import type { JsonWebKey } from 'node:crypto';
import { ExectlError } from '../errors.js';
import { decodeEcPoint, type EcCurve } from './key-blob.js';
import { leftPad } from './ssh-wire.js';

/** A private key as node:crypto imports it, with what signing needs to know about it. */
export type PrivateKeyMaterial = { jwk: JsonWebKey; comment: string } & (
  { family: 'ed25519' } | { family: 'ecdsa'; curve: EcCurve } | { family: 'rsa' }
);

/** The one error for a file that is not a private key exectl can read. */
export function notAPrivateKey(path: string, cause?: unknown): ExectlError {
  return new ExectlError('key_error', `cannot read ${path} as an SSH private key`, {
    hint: 'give the private key file (not the .pub), in OpenSSH, PEM or PKCS#8 format',
    cause,
  });
}

/** The error for a readable key of a type exectl does not sign with. */
export function unsupportedKeyType(path: string, type: string): ExectlError {
  return new ExectlError('key_error', `${path} holds an unsupported ${type} key`, {
    hint: 'use an ed25519, ECDSA or RSA (at least 2048 bits) key: ssh-keygen -t ed25519',
  });
}

function b64u(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

function toBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt('0x' + Buffer.from(bytes).toString('hex'));
}

function fromBigInt(value: bigint): Buffer {
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 === 0 ? hex : '0' + hex, 'hex');
}

/** Modular inverse by the extended Euclidean algorithm (inputs are coprime RSA primes). */
function modInverse(a: bigint, m: bigint): bigint {
  let [oldR, r] = [a % m, m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  return ((oldS % m) + m) % m;
}

/** Ed25519 private JWK from the 32-byte public key and the 32-byte seed. */
export function ed25519Jwk(publicKey: Uint8Array, seed: Uint8Array): JsonWebKey {
  return { kty: 'OKP', crv: 'Ed25519', x: b64u(publicKey), d: b64u(seed) };
}

/**
 * ECDSA private JWK from the uncompressed point (0x04 | X | Y) and the scalar's magnitude.
 *
 * @throws the error made by `fail` when the point or the scalar does not fit the curve.
 */
export function ecJwk(
  curve: EcCurve,
  point: Uint8Array,
  d: Uint8Array,
  fail: () => Error,
): JsonWebKey {
  return {
    ...decodeEcPoint(point, curve, fail),
    d: b64u(leftPad(fromBigInt(toBigInt(d)), curve.size, fail)),
  };
}

/**
 * RSA private JWK with every CRT value. The CRT exponents are computed here whatever the file
 * holds: sshpk has no dp/dq, and without them OpenSSL signs about 3.5 times slower.
 */
export function rsaJwk(parts: Record<'n' | 'e' | 'd' | 'p' | 'q', Uint8Array>): JsonWebKey {
  const [n, e, d, p, q] = [parts.n, parts.e, parts.d, parts.p, parts.q].map(toBigInt) as [
    bigint,
    bigint,
    bigint,
    bigint,
    bigint,
  ];
  const text = (v: bigint): string => b64u(fromBigInt(v));
  return {
    kty: 'RSA',
    n: text(n),
    e: text(e),
    d: text(d),
    p: text(p),
    q: text(q),
    dp: text(d % (p - 1n)),
    dq: text(d % (q - 1n)),
    qi: text(modInverse(q, p)),
  };
}
