/**
 * SSH keys for tokens: public keys (parse, fingerprint, verify wire signatures) and signers
 * (private key files). The pieces live in small modules; this is the one place to import from.
 */
export {
  fingerprintOf,
  parsePublicKey,
  publicKeyFromBlob,
  rsaPublicExponent,
  type PublicKey,
  type Signer,
} from './public-key.js';
export { verifyWireSignature } from './wire-signature.js';
export { loadPrivateKey } from './key-import.js';
