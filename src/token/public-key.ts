import { hash } from 'node:crypto';
import { ExectlError } from '../errors.js';
import { decodeKeyBlob } from './key-blob.js';

/** A supported SSH public key. */
export interface PublicKey {
  /** Key type as in the blob, e.g. `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`. */
  type: string;
  /** SSH wire blob of the key. */
  blob: Buffer;
  /** `SHA256:` + unpadded base64 of SHA-256(blob), as `ssh-keygen -lf` prints it. */
  fingerprint: string;
  comment: string;
  bits: number;
  /** The key as one authorized_keys / .pub line: `type base64 [comment]`. */
  toOpenSsh(): string;
}

/** Something that can sign with an SSH key: a private key file or an ssh-agent key. */
export interface Signer {
  publicKey: PublicKey;
  /** Where the key lives, e.g. `/home/u/.ssh/id_ed25519` or `ssh-agent`. */
  source: string;
  /** Signs `data` with the key's primitive; resolves to an SSH wire signature. */
  sign(data: Uint8Array): Promise<Buffer>;
}

/**
 * The SSH SHA256 fingerprint of a public key blob: `SHA256:` + unpadded base64 of the hash.
 * Works on any bytes, so a verifier can look a key up before (or without) parsing it.
 */
export function fingerprintOf(blob: Uint8Array): string {
  return 'SHA256:' + hash('sha256', blob, 'base64').replace(/=+$/, '');
}

/**
 * Builds a {@link PublicKey} from an SSH wire blob.
 *
 * @throws ExectlError `key_error` for an unsupported or invalid key, or RSA below 2048 bits.
 */
export function publicKeyFromBlob(blob: Uint8Array, comment = ''): PublicKey {
  const decoded = decodeKeyBlob(blob);
  const copy = Buffer.from(blob);
  return {
    type: decoded.type,
    blob: copy,
    fingerprint: fingerprintOf(copy),
    comment,
    bits: decoded.bits,
    toOpenSsh: () => [decoded.type, copy.toString('base64'), comment].join(' ').trimEnd(),
  };
}

/** The public exponent of an RSA key; undefined for other keys. */
export function rsaPublicExponent(key: PublicKey): bigint | undefined {
  const { family, jwk } = decodeKeyBlob(key.blob);
  if (family !== 'rsa' || jwk.e === undefined) return undefined;
  return BigInt(`0x${Buffer.from(jwk.e, 'base64url').toString('hex')}`);
}

/**
 * Parses one public key line as found in a `.pub` or authorized_keys file
 * (`type base64 [comment]`; no options prefix). The type word must match the blob.
 *
 * @throws ExectlError `key_error` for anything that is not a supported public key line.
 */
export function parsePublicKey(text: string): PublicKey {
  const match = /^([^\s]+)\s+([A-Za-z0-9+/]+={0,2})(?:\s+(.*))?$/.exec(text.trim());
  const blob = match === null ? undefined : Buffer.from(match[2] as string, 'base64');
  if (match === null || blob === undefined || blob.toString('base64') !== match[2]) {
    throw new ExectlError('key_error', 'not an SSH public key', {
      hint: 'give one line of a .pub file, like "ssh-ed25519 AAAAC3Nza... you@host"',
    });
  }
  const key = publicKeyFromBlob(blob, (match[3] ?? '').trim());
  if (key.type !== match[1]) {
    throw new ExectlError(
      'key_error',
      `SSH public key says "${match[1]}" but holds a ${key.type} key`,
      {
        hint: 'give the line exactly as in the .pub file',
      },
    );
  }
  return key;
}
