import { createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { EC_CURVES, encodeKeyBlob } from '../../src/token/key-blob.js';
import { publicKeyFromBlob, type Signer } from '../../src/token/keys.js';
import { ecdsaWireSignature, wireSignature } from '../../src/token/wire-signature.js';
import type { KeyKind } from './keys.js';

/** A {@link Signer} whose key exists only in memory, plus its private KeyObject. */
export interface MemorySigner extends Signer {
  privateKey: KeyObject;
}

function generate(kind: KeyKind): KeyObject {
  if (kind === 'ed25519') return generateKeyPairSync('ed25519').privateKey;
  if (kind.startsWith('ecdsa-')) {
    const namedCurve = `P-${kind.slice('ecdsa-'.length)}`;
    return generateKeyPairSync('ec', { namedCurve }).privateKey;
  }
  const modulusLength = Number(kind.slice('rsa-'.length));
  return generateKeyPairSync('rsa', { modulusLength }).privateKey;
}

/**
 * A fresh key of `kind` made with node:crypto, signing exactly as exectl's file signers do
 * (ed25519; ECDSA with the curve's hash; RSA as rsa-sha2-512). For fast unit tests that need
 * real signatures but no key files; interop with OpenSSH is proven by the integration tests.
 */
export function createMemorySigner(kind: KeyKind, comment = `${kind}@memory`): MemorySigner {
  const privateKey = generate(kind);
  const blob = encodeKeyBlob(createPublicKey(privateKey).export({ format: 'jwk' }));
  const publicKey = publicKeyFromBlob(blob, comment);
  const curve = EC_CURVES.find((c) => kind === `ecdsa-${c.bits}`);
  const signRaw = (data: Uint8Array): Buffer => {
    if (kind === 'ed25519') return wireSignature('ssh-ed25519', sign(null, data, privateKey));
    if (curve !== undefined) {
      const p1363 = sign(curve.hash, data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
      return ecdsaWireSignature(curve, p1363);
    }
    return wireSignature('rsa-sha2-512', sign('sha512', data, privateKey));
  };
  return { publicKey, privateKey, source: 'memory', sign: async (data) => signRaw(data) };
}
