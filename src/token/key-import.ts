import {
  createPrivateKey,
  createPublicKey,
  sign,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { PrivateKey as SshpkPrivateKey } from 'sshpk';
import { ExectlError } from '../errors.js';
import { EC_CURVES, encodeKeyBlob, type EcCurve } from './key-blob.js';
import { publicKeyFromBlob, type Signer } from './public-key.js';
import { leftPad, SshReader } from './ssh-wire.js';
import { ecdsaWireSignature, wireSignature } from './wire-signature.js';

const OPENSSH_ARMOR =
  /-----BEGIN OPENSSH PRIVATE KEY-----([A-Za-z0-9+/=\s]*)-----END OPENSSH PRIVATE KEY-----/;
const OPENSSH_MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');
/**
 * Ciphers sshpk decrypts correctly. It has no chacha20-poly1305 and treats aes-gcm as plain
 * aes without checking the tag, which would surface as a misleading "wrong passphrase".
 */
const READABLE_CIPHERS = new Set([
  'none',
  'aes128-ctr',
  'aes192-ctr',
  'aes256-ctr',
  'aes128-cbc',
  'aes192-cbc',
  'aes256-cbc',
  '3des-cbc',
]);

function notAPrivateKey(path: string, cause?: unknown): ExectlError {
  return new ExectlError('key_error', `cannot read ${path} as an SSH private key`, {
    hint: 'give the private key file (not the .pub), in OpenSSH, PEM or PKCS#8 format',
    cause,
  });
}

async function readKeyFile(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ExectlError('key_error', `cannot read key file ${path} (${code})`, {
      hint: 'check the path given to --key or EXECTL_KEY',
      cause,
    });
  }
}

/** The cipher named in an OpenSSH-format private key, or undefined for other formats. */
function opensshCipher(file: Buffer, path: string): string | undefined {
  const armored = OPENSSH_ARMOR.exec(file.toString('latin1'));
  if (armored === null) return undefined;
  const body = Buffer.from((armored[1] as string).replace(/\s+/g, ''), 'base64');
  const reader = new SshReader(body, () => notAPrivateKey(path));
  if (!reader.raw(OPENSSH_MAGIC.length).equals(OPENSSH_MAGIC)) throw notAPrivateKey(path);
  return reader.text();
}

async function parseKeyFile(
  file: Buffer,
  path: string,
  askPassphrase: () => Promise<string | undefined>,
): Promise<SshpkPrivateKey> {
  const { default: sshpk } = await import('sshpk');
  try {
    return sshpk.parsePrivateKey(file, 'auto', { filename: path });
  } catch (cause) {
    if (!(cause instanceof Error && cause.name === 'KeyEncryptedError')) {
      throw notAPrivateKey(path, cause);
    }
  }
  const passphrase = await askPassphrase();
  if (passphrase === undefined) {
    throw new ExectlError('key_error', `${path} is protected by a passphrase`, {
      hint: 'set EXECTL_PASSPHRASE, or run exectl on a terminal to be asked for it',
    });
  }
  try {
    return sshpk.parsePrivateKey(file, 'auto', { filename: path, passphrase });
  } catch (cause) {
    throw new ExectlError('key_error', `wrong passphrase for ${path}`, {
      hint: 'check EXECTL_PASSPHRASE or the passphrase typed',
      cause,
    });
  }
}

function part(key: SshpkPrivateKey, name: string, path: string): Buffer {
  const found = key.parts.find((p) => p.name === name);
  if (found === undefined) throw notAPrivateKey(path);
  return found.data;
}

function b64u(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

function toBigInt(bytes: Buffer): bigint {
  return BigInt('0x' + (bytes.length === 0 ? '0' : bytes.toString('hex')));
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

/**
 * RSA private JWK with the CRT values: sshpk has no dp/dq, and without them OpenSSL signs
 * about 3.5 times slower.
 */
function rsaJwk(key: SshpkPrivateKey, path: string): JsonWebKey {
  const value = (name: string): bigint => toBigInt(part(key, name, path));
  const [n, e, d, p, q] = [value('n'), value('e'), value('d'), value('p'), value('q')] as const;
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

function ecJwk(key: SshpkPrivateKey, curve: EcCurve, path: string): JsonWebKey {
  const point = part(key, 'Q', path);
  if (point.length !== 1 + 2 * curve.size || point[0] !== 0x04) throw notAPrivateKey(path);
  const d = fromBigInt(toBigInt(part(key, 'd', path)));
  return {
    kty: 'EC',
    crv: curve.jwkName,
    x: b64u(point.subarray(1, 1 + curve.size)),
    y: b64u(point.subarray(1 + curve.size)),
    d: b64u(leftPad(d, curve.size, () => notAPrivateKey(path))),
  };
}

type RawSigner = (data: Uint8Array, key: KeyObject) => Buffer;

/** Node's private JWK for the sshpk key, and how to make SSH wire signatures with it. */
function importKey(key: SshpkPrivateKey, path: string): { jwk: JsonWebKey; signRaw: RawSigner } {
  if (key.type === 'ed25519') {
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: b64u(part(key, 'A', path)) };
    return {
      jwk: { ...jwk, d: b64u(part(key, 'k', path)) },
      signRaw: (data, k) => wireSignature('ssh-ed25519', sign(null, data, k)),
    };
  }
  const curve = EC_CURVES.find((c) => key.type === 'ecdsa' && c.sshName === key.curve);
  if (curve !== undefined) {
    return {
      jwk: ecJwk(key, curve, path),
      signRaw: (data, k) =>
        ecdsaWireSignature(curve, sign(curve.hash, data, { key: k, dsaEncoding: 'ieee-p1363' })),
    };
  }
  if (key.type === 'rsa') {
    return {
      jwk: rsaJwk(key, path),
      // The key type stays ssh-rsa; only SHA-2 signatures are accepted anywhere now.
      signRaw: (data, k) => wireSignature('rsa-sha2-512', sign('sha512', data, k)),
    };
  }
  throw new ExectlError('key_error', `${path} holds an unsupported ${key.type} key`, {
    hint: 'use an ed25519, ECDSA or RSA (at least 2048 bits) key: ssh-keygen -t ed25519',
  });
}

/**
 * Loads a private key file (OpenSSH — also passphrase-protected with bcrypt and aes-ctr/cbc —,
 * PEM or PKCS#8) and returns a {@link Signer} that signs with node:crypto: ed25519,
 * ECDSA (curve's hash, r/s as mpints) and RSA (rsa-sha2-512). sshpk is imported lazily here,
 * only to parse the file, so that nothing else pays for loading it.
 *
 * @param opts.passphrase called only when the key is encrypted; undefined means none is known.
 * @throws ExectlError `key_error` when the file cannot be read or parsed, the passphrase is
 *   missing or wrong, the cipher is one sshpk cannot read (points to ssh-agent), or the key
 *   type is unsupported (including RSA below 2048 bits).
 */
export async function loadPrivateKey(
  path: string,
  opts: { passphrase: () => Promise<string | undefined> },
): Promise<Signer> {
  const file = await readKeyFile(path);
  const cipher = opensshCipher(file, path);
  if (cipher !== undefined && !READABLE_CIPHERS.has(cipher)) {
    throw new ExectlError(
      'key_error',
      `${path} is encrypted with ${cipher}, which exectl cannot read`,
      {
        hint: 'load it into ssh-agent with `ssh-add` and exectl will sign through the agent',
      },
    );
  }
  const parsed = await parseKeyFile(file, path, opts.passphrase);
  const { jwk, signRaw } = importKey(parsed, path);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
  } catch (cause) {
    throw notAPrivateKey(path, cause);
  }
  // Derive the public half from the private key itself, so the blob always matches it.
  const blob = encodeKeyBlob(createPublicKey(privateKey).export({ format: 'jwk' }));
  return {
    publicKey: publicKeyFromBlob(blob, parsed.comment ?? ''),
    source: path,
    sign: async (data) => signRaw(data, privateKey),
  };
}
