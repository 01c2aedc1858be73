import { canonicalToken } from '../../dialects.js';
import { commandFailed } from '../../errors.js';
import { dialectsOf } from '../config.js';
import { decodeSvc0Unverified } from '../../token/decode.js';
import { TokenError } from '../../token/errors.js';
import { tokenKind } from '../../token/format.js';
import { parsePublicKey, type PublicKey } from '../../token/keys.js';
import { verifySvc0, type VerifiedToken } from '../../token/verify.js';
import { nowSeconds, type ServiceContext } from './shared/command.js';
import { isKeyInTagScope } from '../rules/tag-scope.js';

/**
 * Verifies a svc0 token given as a command ARGUMENT (not the request's bearer token): it must
 * be signed by one of the CALLER's keys for `namespace`, pass every structural rule and not be
 * expired. Unlike authentication, `nbf` is not checked (SPEC §3 `svc0-to-svc1`: "only exp is
 * checked now"); it is checked at every use of the resulting svc1.
 *
 * Failures are the caller's bad input, so they are 422, not 401: `invalid svc0 token: <reason>`
 * (e.g. `expired`, `malformed`), `invalid svc0 token: not signed by one of your keys for
 * <namespace>` (also for another account's key: whose it is stays unsaid), or
 * `this is already a svc1 token`.
 */
export function verifyOwnSvc0(
  ctx: ServiceContext,
  given: string,
  namespace: string,
): VerifiedToken {
  // `exe0.…` is a svc0 under `--compat exe.dev` (SPEC §12).
  const token = canonicalToken(given, dialectsOf(ctx.deps.config));
  if (tokenKind(token) === 'svc1') throw commandFailed('this is already a svc1 token');
  try {
    // verifySvc0 judges exp and nbf against one clock. Handing it max(now, nbf) makes nbf
    // always pass while exp is still judged at now — except when nbf lies beyond now AND
    // beyond exp, a token that can never be valid, which then reads as expired.
    const { nbf } = decodeSvc0Unverified(token).permissions;
    return verifySvc0(token, {
      namespace,
      nowSeconds: Math.max(nowSeconds(ctx), nbf ?? 0),
      findKey: (fingerprint) => callersKey(ctx, fingerprint),
    });
  } catch (error) {
    if (!(error instanceof TokenError)) throw error;
    if (error.reason === 'rejected') {
      throw commandFailed(`invalid svc0 token: not signed by one of your keys for ${namespace}`);
    }
    throw commandFailed(error.message.replace(/^invalid token/, 'invalid svc0 token'));
  }
}

/**
 * The caller's registered key with this fingerprint; another account's key counts as none, and
 * for a tag-scoped caller so does every key but its own.
 */
function callersKey(ctx: ServiceContext, fingerprint: string): PublicKey | undefined {
  const record = ctx.deps.store.findKeyByFingerprint(fingerprint);
  if (record === undefined || record.accountId !== ctx.principal.accountId) return undefined;
  if (!isKeyInTagScope(ctx.principal, record)) return undefined;
  return parsePublicKey(record.publicKey);
}
