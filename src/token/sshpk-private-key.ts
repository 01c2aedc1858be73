// Private key files the project's own reader leaves alone — passphrase-protected OpenSSH keys,
// PEM and PKCS#8 — read with sshpk, imported here lazily: loading it costs about a third of
// the CLI's start-up, so only these files pay for it.
import type { PrivateKey as SshpkPrivateKey } from 'sshpk';
import { ExectlError } from '../errors.js';
import { EC_CURVES } from './key-blob.js';
import {
  ecJwk,
  ed25519Jwk,
  notAPrivateKey,
  rsaJwk,
  unsupportedKeyType,
  type PrivateKeyMaterial,
} from './private-key-material.js';

async function parseKeyFile(
  file: Buffer,
  path: string,
  askPassphrase: () => Promise<string | undefined>,
): Promise<SshpkPrivateKey> {
  const { default: sshpk } = await import('sshpk');
  // sshpk puts `filename` in place of a missing comment; '' keeps a key's comment its own
  // (as the own reader does). Its errors are wrapped in ours, which name the path.
  const options = { filename: '' };
  try {
    return sshpk.parsePrivateKey(file, 'auto', options);
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
    return sshpk.parsePrivateKey(file, 'auto', { ...options, passphrase });
  } catch (cause) {
    throw new ExectlError('key_error', `wrong passphrase for ${path}`, {
      hint: 'check EXECTL_PASSPHRASE or the passphrase typed',
      cause,
    });
  }
}

/**
 * Reads a private key file with sshpk (asking for the passphrase only when it is encrypted)
 * into node:crypto's JWK. sshpk is used for parsing only, never for its crypto.
 *
 * @throws ExectlError `key_error` when the file is not a key, the passphrase is missing or
 *   wrong, or the key type is unsupported.
 */
export async function readWithSshpk(
  file: Buffer,
  path: string,
  askPassphrase: () => Promise<string | undefined>,
): Promise<PrivateKeyMaterial> {
  const key = await parseKeyFile(file, path, askPassphrase);
  const part = (name: string): Buffer => {
    const found = key.parts.find((p) => p.name === name);
    if (found === undefined) throw notAPrivateKey(path);
    return found.data;
  };
  const comment = key.comment ?? '';
  if (key.type === 'ed25519') {
    return { family: 'ed25519', comment, jwk: ed25519Jwk(part('A'), part('k')) };
  }
  const curve = EC_CURVES.find((c) => key.type === 'ecdsa' && c.sshName === key.curve);
  if (curve !== undefined) {
    const jwk = ecJwk(curve, part('Q'), part('d'), () => notAPrivateKey(path));
    return { family: 'ecdsa', curve, comment, jwk };
  }
  if (key.type === 'rsa') {
    const [n, e, d, p, q] = ['n', 'e', 'd', 'p', 'q'].map(part) as [
      Buffer,
      Buffer,
      Buffer,
      Buffer,
      Buffer,
    ];
    return { family: 'rsa', comment, jwk: rsaJwk({ n, e, d, p, q }) };
  }
  throw unsupportedKeyType(path, key.type);
}
