// The owner's key of a library-started server: a fresh ed25519 pair written as OpenSSH files
// (so `ssh -i` and `exectl --key` take it too), or a private key file the caller names.
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openSshPrivateKey } from '../service/index.js';
import { loadPrivateKey, publicKeyFromBlob, type Signer } from '../token/keys.js';

/** A key pair the tests can sign with. */
export interface OwnerKey {
  /** The private key file (OpenSSH format, mode 0600). */
  privateKeyPath: string;
  /** The public key as one OpenSSH line. */
  publicKey: string;
  /** `SHA256:...` */
  fingerprint: string;
  /** Signs with the key, for `mint` and `Client({key})`. */
  signer: Signer;
}

/**
 * The key at `privateKeyPath` (unencrypted), or a new ed25519 pair written into `folder` as
 * `owner_ed25519` and `owner_ed25519.pub`.
 */
export async function ownerKey(
  privateKeyPath: string | undefined,
  folder: string,
): Promise<OwnerKey> {
  let path = privateKeyPath;
  if (path === undefined) {
    path = join(folder, 'owner_ed25519');
    const { privateKey } = generateKeyPairSync('ed25519');
    await writeFile(path, await openSshPrivateKey(privateKey), { mode: 0o600 });
  }
  const signer = await signerFor(path);
  // A generated key has no comment (sshpk reads it as `(unnamed)`): `owner` names it.
  const publicKey =
    privateKeyPath === undefined
      ? publicKeyFromBlob(signer.publicKey.blob, 'owner').toOpenSsh()
      : signer.publicKey.toOpenSsh();
  if (privateKeyPath === undefined) await writeFile(`${path}.pub`, `${publicKey}\n`);
  return { privateKeyPath: path, publicKey, fingerprint: signer.publicKey.fingerprint, signer };
}

/** A signer for an unencrypted private key file (a test has no one to ask a passphrase). */
export function signerFor(path: string): Promise<Signer> {
  return loadPrivateKey(path, { passphrase: async () => undefined });
}
