import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ExectlError } from '../errors.js';
import { encodeKeyBlob } from './key-blob.js';
import { readOpenSshKeyFile, type OpenSshKeyFile } from './openssh-private-key.js';
import { notAPrivateKey, type PrivateKeyMaterial } from './private-key-material.js';
import { publicKeyFromBlob, type Signer } from './public-key.js';
import { readWithSshpk } from './sshpk-private-key.js';
import { ecdsaWireSignature, wireSignature } from './wire-signature.js';

/**
 * Ciphers sshpk decrypts correctly. It has no chacha20-poly1305 and treats aes-gcm as plain
 * aes without checking the tag, which would surface as a misleading "wrong passphrase".
 */
const READABLE_CIPHERS = new Set([
  'aes128-ctr',
  'aes192-ctr',
  'aes256-ctr',
  'aes128-cbc',
  'aes192-cbc',
  'aes256-cbc',
  '3des-cbc',
]);

/**
 * Read synchronously: a key file is small and local, and it is read when a signer is made (a
 * CLI command, a library `Client` or server start), never while a server answers requests.
 * Waiting on the thread pool instead costs `exectl mint` a measured 1.5 ms, and
 * node:fs/promises would load readline and file watching with it.
 */
function readKeyFile(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ExectlError('key_error', `cannot read key file ${path} (${code})`, {
      hint: 'check the path given to --key or EXECTL_KEY',
      cause,
    });
  }
}

/**
 * The key in a private key file (with the header's public key blob when the file has one):
 * unencrypted OpenSSH keys by the project's own reader, every
 * other format (and key type) by sshpk, loaded only then.
 */
async function readPrivateKeyFile(
  file: Buffer,
  path: string,
  askPassphrase: () => Promise<string | undefined>,
): Promise<{ material: PrivateKeyMaterial; publicBlob?: Buffer }> {
  const openssh = readOpenSshKeyFile(file, path);
  if (openssh?.material !== undefined) return openssh as Required<OpenSshKeyFile>;
  if (openssh !== undefined && openssh.cipher !== 'none' && !READABLE_CIPHERS.has(openssh.cipher)) {
    throw new ExectlError(
      'key_error',
      `${path} is encrypted with ${openssh.cipher}, which exectl cannot read`,
      { hint: 'load it into ssh-agent with `ssh-add` and exectl will sign through the agent' },
    );
  }
  return { material: await readWithSshpk(file, path, askPassphrase) };
}

type RawSigner = (data: Uint8Array, key: KeyObject) => Buffer;

/** How to make SSH wire signatures with a key of this kind. */
function rawSigner(material: PrivateKeyMaterial): RawSigner {
  switch (material.family) {
    case 'ed25519':
      return (data, k) => wireSignature('ssh-ed25519', sign(null, data, k));
    case 'ecdsa': {
      const { curve } = material;
      return (data, k) =>
        ecdsaWireSignature(curve, sign(curve.hash, data, { key: k, dsaEncoding: 'ieee-p1363' }));
    }
    case 'rsa':
      // The key type stays ssh-rsa; only SHA-2 signatures are accepted anywhere now.
      return (data, k) => wireSignature('rsa-sha2-512', sign('sha512', data, k));
  }
}

/**
 * A {@link Signer} for a key already read: node:crypto signs (ed25519, ECDSA with the curve's
 * hash and r/s as mpints, RSA as rsa-sha2-512), and the public key is derived from the private
 * one, so the blob always matches it.
 *
 * @throws ExectlError `key_error` when node:crypto refuses the key, or it is unsupported
 *   (including RSA below 2048 bits).
 */
export function signerFromMaterial(material: PrivateKeyMaterial, path: string): Signer {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: material.jwk, format: 'jwk' });
  } catch (cause) {
    throw notAPrivateKey(path, cause);
  }
  const blob = encodeKeyBlob(createPublicKey(privateKey).export({ format: 'jwk' }));
  const signRaw = rawSigner(material);
  return {
    publicKey: publicKeyFromBlob(blob, material.comment),
    source: path,
    sign: async (data) => signRaw(data, privateKey),
  };
}

/**
 * Loads a private key file (OpenSSH — also passphrase-protected with bcrypt and aes-ctr/cbc —,
 * PEM or PKCS#8) and returns a {@link Signer} that signs with node:crypto. Unencrypted OpenSSH
 * keys (what `ssh-keygen` writes by default) are read without sshpk; sshpk is imported lazily
 * for the other formats only, so that nothing else pays for loading it.
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
  const file = readKeyFile(path);
  const { material, publicBlob } = await readPrivateKeyFile(file, path, opts.passphrase);
  const signer = signerFromMaterial(material, path);
  // As OpenSSH: the clear public key of the header must be the private key's own.
  if (publicBlob !== undefined && !publicBlob.equals(signer.publicKey.blob)) {
    throw notAPrivateKey(path);
  }
  return signer;
}
