import { hash as digestOf } from 'node:crypto';
import { TokenError } from './errors.js';
import { SshReader, sshString, sshUint32 } from './ssh-wire.js';

/** The message hashes OpenSSH's SSHSIG allows. */
export type HashAlgorithm = 'sha256' | 'sha512';

/** A parsed SSHSIG blob (OpenSSH PROTOCOL.sshsig). */
export interface SshSignature {
  /** SSH wire blob of the signing public key. */
  publicKey: Buffer;
  namespace: string;
  reserved: Buffer;
  hashAlgorithm: HashAlgorithm;
  /** SSH wire signature: string alg, string sig[, byte flags, uint32 counter for sk keys]. */
  signature: Buffer;
  /** The `alg` string at the start of {@link SshSignature.signature}, e.g. `rsa-sha2-512`. */
  signatureAlgorithm: string;
}

const MAGIC = Buffer.from('SSHSIG', 'ascii');
const VERSION = 1;
const ARMOR_BEGIN = '-----BEGIN SSH SIGNATURE-----';
const ARMOR_END = '-----END SSH SIGNATURE-----';
/** OpenSSH wraps the armored base64 at 70 columns, not the usual 64 or 76. */
const ARMOR_COLUMNS = 70;

function malformed(): TokenError {
  return new TokenError('bad_signature_blob', 'malformed signature');
}

function isHashAlgorithm(name: string): name is HashAlgorithm {
  return name === 'sha256' || name === 'sha512';
}

/**
 * Parses a binary SSHSIG blob (the bare blob, as inside the armor, without an outer length).
 * Checks structure only — magic, version 1, every length, no trailing bytes, a hash of
 * sha256/sha512 and a signature that starts with its algorithm name — never the signature.
 *
 * @throws TokenError `bad_signature_blob` (`invalid token: malformed signature`) on any
 *   structural problem, and never any other error.
 */
export function parseSshSig(blob: Uint8Array): SshSignature {
  const reader = new SshReader(blob, malformed);
  if (!reader.raw(MAGIC.length).equals(MAGIC)) throw malformed();
  if (reader.uint32() !== VERSION) throw malformed();
  const publicKey = Buffer.from(reader.string());
  const namespace = reader.text();
  const reserved = Buffer.from(reader.string());
  const hashAlgorithm = reader.text();
  const signature = Buffer.from(reader.string());
  reader.end();
  if (!isHashAlgorithm(hashAlgorithm)) throw malformed();
  const signatureAlgorithm = new SshReader(signature, malformed).text();
  return { publicKey, namespace, reserved, hashAlgorithm, signature, signatureAlgorithm };
}

/**
 * Encodes an SSHSIG blob; the exact inverse of {@link parseSshSig}.
 */
export function encodeSshSig(sig: Omit<SshSignature, 'signatureAlgorithm'>): Buffer {
  return Buffer.concat([
    MAGIC,
    sshUint32(VERSION),
    sshString(sig.publicKey),
    sshString(sig.namespace),
    sshString(sig.reserved),
    sshString(sig.hashAlgorithm),
    sshString(sig.signature),
  ]);
}

/**
 * Builds the bytes the key's primitive actually signs for an SSHSIG over `message`:
 * `"SSHSIG" | string namespace | string "" | string hash_algorithm | string H(message)`.
 * The reserved field is always empty here, whatever a blob carries, exactly as OpenSSH
 * rebuilds it when verifying.
 */
export function signedData(namespace: string, hash: HashAlgorithm, message: Uint8Array): Buffer {
  const digest = digestOf(hash, message, 'buffer');
  return Buffer.concat([
    MAGIC,
    sshString(namespace),
    sshString(''),
    sshString(hash),
    sshString(digest),
  ]);
}

/**
 * Wraps a binary SSHSIG blob in OpenSSH's armor, as `ssh-keygen -Y sign` prints it:
 * BEGIN line, base64 in 70-column lines, END line, each ending in LF.
 */
export function armorSshSig(blob: Uint8Array): string {
  const base64 = Buffer.from(blob).toString('base64');
  const lines = [ARMOR_BEGIN];
  for (let i = 0; i < base64.length; i += ARMOR_COLUMNS) {
    lines.push(base64.slice(i, i + ARMOR_COLUMNS));
  }
  lines.push(ARMOR_END);
  return lines.join('\n') + '\n';
}

/**
 * Reverses {@link armorSshSig}: accepts the armor with LF or CRLF line ends and optional
 * surrounding blank lines; the base64 must be canonical (standard alphabet, padded).
 * Returns the binary blob without checking its structure (use {@link parseSshSig}).
 *
 * @throws TokenError `bad_signature_blob` when the armor lines or the base64 are wrong.
 */
export function dearmorSshSig(text: string): Buffer {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (lines.length < 2 || lines[0] !== ARMOR_BEGIN || lines[lines.length - 1] !== ARMOR_END) {
    throw malformed();
  }
  const base64 = lines.slice(1, -1).join('');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) throw malformed();
  const blob = Buffer.from(base64, 'base64');
  if (blob.toString('base64') !== base64) throw malformed();
  return blob;
}
