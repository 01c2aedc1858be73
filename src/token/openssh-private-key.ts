// The project's own reader of unencrypted OpenSSH private keys (PROTOCOL.key,
// `openssh-key-v1`), so that signing with the usual `ssh-keygen` key never loads sshpk (about
// a third of `exectl mint`'s start-up). Encrypted keys, PEM and PKCS#8 stay with sshpk.
import { EC_CURVES } from './key-blob.js';
import {
  ecJwk,
  ed25519Jwk,
  notAPrivateKey,
  rsaJwk,
  type PrivateKeyMaterial,
} from './private-key-material.js';
import { SshReader } from './ssh-wire.js';

const ARMOR =
  /-----BEGIN OPENSSH PRIVATE KEY-----([A-Za-z0-9+/=\s]*)-----END OPENSSH PRIVATE KEY-----/;
const MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');
/** The private section of an unencrypted key is padded to this block size. */
const PLAIN_BLOCK_SIZE = 8;

/** An OpenSSH-format private key file: its cipher, and its key when it is not encrypted. */
export interface OpenSshKeyFile {
  cipher: string;
  /** Read for `cipher` none and a key type exectl signs with; otherwise left to sshpk. */
  material?: PrivateKeyMaterial;
  /** The public key blob in the file's clear header. */
  publicBlob: Buffer;
}

/**
 * Reads an OpenSSH-format private key file (`-----BEGIN OPENSSH PRIVATE KEY-----`). Returns
 * undefined for any other format. For an unencrypted ed25519, ECDSA (P-256/384/521) or RSA
 * key it reads the private part too, as OpenSSH does: one key, equal check integers, the
 * padding bytes 1, 2, 3…, nothing after.
 *
 * @throws ExectlError `key_error` ("cannot read PATH as an SSH private key") when the armor
 *   holds a malformed structure.
 */
export function readOpenSshKeyFile(file: Buffer, path: string): OpenSshKeyFile | undefined {
  const armored = ARMOR.exec(file.toString('latin1'));
  if (armored === null) return undefined;
  const fail = () => notAPrivateKey(path);
  const body = Buffer.from((armored[1] as string).replace(/\s+/g, ''), 'base64');
  const reader = new SshReader(body, fail);
  if (!reader.raw(MAGIC.length).equals(MAGIC)) throw fail();
  const cipher = reader.text();
  const kdf = reader.text();
  reader.string(); // kdf options
  if (reader.uint32() !== 1) throw fail();
  const publicBlob = reader.string();
  const section = reader.string();
  // An AEAD cipher's tag follows the section: only a plain file must end here.
  if (cipher !== 'none') return { cipher, publicBlob };
  reader.end();
  if (kdf !== 'none') throw fail();
  return { cipher, publicBlob, material: readPlainSection(section, fail) };
}

function readPlainSection(section: Buffer, fail: () => Error): PrivateKeyMaterial | undefined {
  if (section.length % PLAIN_BLOCK_SIZE !== 0) throw fail();
  const reader = new SshReader(section, fail);
  if (reader.uint32() !== reader.uint32()) throw fail();
  const type = reader.text();
  const key = readPrivateKey(type, reader, fail);
  if (key === undefined) return undefined;
  const comment = reader.text();
  for (let pad = 1; !reader.atEnd; pad++) if (reader.byte() !== pad) throw fail();
  return { ...key, comment };
}

type KeyWithoutComment = PrivateKeyMaterial extends infer M
  ? M extends PrivateKeyMaterial
    ? Omit<M, 'comment'>
    : never
  : never;

/** The key-specific fields after the type string; undefined for a type left to sshpk. */
function readPrivateKey(
  type: string,
  reader: SshReader,
  fail: () => Error,
): KeyWithoutComment | undefined {
  if (type === 'ssh-ed25519') {
    const publicKey = reader.string();
    const secret = reader.string();
    // The secret is the 32-byte seed followed by the public key again.
    if (publicKey.length !== 32 || secret.length !== 64) throw fail();
    if (!secret.subarray(32).equals(publicKey)) throw fail();
    return { family: 'ed25519', jwk: ed25519Jwk(publicKey, secret.subarray(0, 32)) };
  }
  const curve = EC_CURVES.find((c) => type === `ecdsa-sha2-${c.sshName}`);
  if (curve !== undefined) {
    if (reader.text() !== curve.sshName) throw fail();
    const point = reader.string();
    return { family: 'ecdsa', curve, jwk: ecJwk(curve, point, reader.mpint(), fail) };
  }
  if (type === 'ssh-rsa') {
    const [n, e, d] = [reader.mpint(), reader.mpint(), reader.mpint()];
    reader.mpint(); // iqmp: recomputed from p and q with the other CRT values
    const [p, q] = [reader.mpint(), reader.mpint()];
    return { family: 'rsa', jwk: rsaJwk({ n, e, d, p, q }) };
  }
  return undefined;
}
