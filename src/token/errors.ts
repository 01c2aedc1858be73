import { ExectlError } from '../errors.js';

/**
 * Why a token was refused. Stable codes: tests and callers branch on these, never on messages.
 * - structural reasons (`inspect` exit 2): the token cannot be decoded or breaks a §1.3 rule;
 * - validity reasons (`inspect` exit 1): decoded fine but not acceptable now or here.
 */
export type TokenErrorReason =
  | 'too_large'
  | 'malformed'
  | 'bad_base64url'
  | 'bad_permissions'
  | 'bad_signature_blob'
  | 'unsupported_key'
  | 'expired'
  | 'not_yet_valid'
  | 'rejected';

const VALIDITY_REASONS: ReadonlySet<TokenErrorReason> = new Set([
  'expired',
  'not_yet_valid',
  'rejected',
]);

/**
 * A token failure. Its message is exactly what the server answers with 401, e.g.
 * `invalid token: expired`; for `rejected` it is just `invalid token` and the real cause goes
 * to {@link ExectlError.logDetail}, so an attacker never learns which check failed.
 */
export class TokenError extends ExectlError {
  readonly reason: TokenErrorReason;

  constructor(reason: TokenErrorReason, detail?: string, logDetail?: string) {
    super('unauthorized', detail === undefined ? 'invalid token' : `invalid token: ${detail}`, {
      hint: 'mint a new token with `exectl mint`, or check it with `exectl inspect`',
      ...(logDetail === undefined ? {} : { logDetail }),
    });
    this.name = 'TokenError';
    this.reason = reason;
  }

  /** True when the token could not even be decoded (as opposed to decoded but not valid). */
  get structural(): boolean {
    return !VALIDITY_REASONS.has(this.reason);
  }
}
