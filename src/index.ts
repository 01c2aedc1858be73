// The package as a library (SPEC §10): what a test suite needs to use the service without a
// shell. Re-exports only; each piece lives in its own room.
export { startServer, type MintPermissions, type RunningServer } from './library/start-server.js';
export type { StartServerOptions } from './library/options.js';
export type { OwnerKey } from './library/owner-key.js';
export { Client, ExecError, type ClientOptions, type SshResult } from './library/client.js';
export type { FaultSpec, SeedDocument } from './service/public-types.js';
export { mintSvc0 as mint } from './token/mint.js';
export { decodeSvc0Unverified as decode, type DecodedSvc0 } from './token/decode.js';
export { verifySvc0 as verify, type VerifiedToken, type VerifyOptions } from './token/verify.js';
export { loadPrivateKey, parsePublicKey, type PublicKey, type Signer } from './token/keys.js';
export { serializePermissions, type Permissions } from './token/permissions.js';
export { ExectlError, type ErrorCode } from './errors.js';
