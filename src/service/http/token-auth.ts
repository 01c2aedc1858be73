import { ExectlError } from '../../errors.js';
import { TokenError } from '../../token/errors.js';
import { isWellFormedSvc1, tokenKind } from '../../token/format.js';
import { parsePublicKey, type PublicKey } from '../../token/keys.js';
import { effectiveCmds, type Permissions } from '../../token/permissions.js';
import { checkTimeWindow, verifySvc0, type VerifiedToken } from '../../token/verify.js';
import { canonicalToken, EXECTL_DIALECT, type Dialect } from '../../dialects.js';
import type { Principal } from '../dispatch/types.js';
import type { Account, SshKeyRecord, Store } from '../store/index.js';
import type { RateLimit } from '../rules/rate-limit.js';
import { FailuresByAddress, type ClientConnection } from './failures-by-address.js';
import type { WaitingConnection } from './verification-turns.js';

/** A request's caller once its token passed SPEC §1.5. */
export interface TokenCaller {
  principal: Principal;
  account: Account;
  permissions: Permissions;
}

/** Default bound on remembered verifications, passed or failed; reaching it forgets them all. */
const CACHE_LIMIT = 10_000;
/** How long a failed signature check is remembered. */
const FAILED_FOR_MS = 60_000;
interface TokenAuthOptions {
  /** How many passed signature checks to remember (10000 by default). Tests reach a small one. */
  verifiedLimit?: number;
  /** How many failed signature checks to remember, each for 60 s (10000 by default). */
  failedLimit?: number;
  /** Failed verifications allowed per client address; null or absent: any. */
  failureRate?: RateLimit | null;
  /**
   * The dialects whose token prefixes are read as exectl's (`exe0.` as `svc0.`, SPEC §12);
   * absent: exectl's own only.
   */
  dialects?: readonly Dialect[];
}

/** Thrown by a key lookup to stop a verification just before its signature check. */
const REACHES_SIGNATURE = new Error('reaches the signature check');

/** A failed signature check, remembered: its cause for the log, and until when it holds. */
interface Failure {
  logDetail: string;
  untilMs: number;
}

/**
 * Authenticates bearer tokens against the store (SPEC §1.5 steps 2–6). Signature checks are
 * remembered per exact token string, because a signature that verified once with a key will
 * verify again with that same key; everything that can change is checked on every use: the
 * time window, that the key is still registered (with the very same blob), and its account.
 *
 * Against floods of bad tokens (SPEC §7): a signature check that failed against a registered
 * key is remembered for 60 s, so repeating a token costs no verification; and each client
 * address may fail only so often (failures-by-address.ts), after which its failures are
 * answered 429 instead of 401. The address's bucket is charged and consulted only when a token
 * FAILS: a token that verifies passes whatever others at its address did (its key's own bucket,
 * SPEC §2, still applies). What a failure past the budget costs the failing client is its
 * connection: that answer closes it, and the requests it already sent behind (pipelined) are
 * refused on the bucket alone, without verification. An address out of failures still has its
 * tokens verified, but at a pace ({@link turnToVerify}).
 */
export class TokenAuthenticator {
  readonly #store: Store;
  readonly #nowMs: () => number;
  /** By namespace, then by exact svc0 string (no per-request key concatenation). */
  readonly #verified = new Map<string, Map<string, VerifiedToken>>();
  readonly #verifiedLimit: number;
  /** Failed checks, keyed like {@link #verified}. */
  readonly #failed = new Map<string, Map<string, Failure>>();
  readonly #failedLimit: number;
  readonly #failures: FailuresByAddress | null;
  readonly #keys = new Map<string, { text: string; key: PublicKey }>();
  readonly #dialects: readonly Dialect[];

  /**
   * @param store where keys, accounts and svc1 tokens are looked up, on every request.
   * @param nowMs the clock for the tokens' time windows and the remembered failures.
   * @param options bounds of the caches, and the failed verifications allowed per address.
   */
  constructor(store: Store, nowMs: () => number, options: TokenAuthOptions = {}) {
    this.#store = store;
    this.#nowMs = nowMs;
    this.#verifiedLimit = options.verifiedLimit ?? CACHE_LIMIT;
    this.#failedLimit = options.failedLimit ?? CACHE_LIMIT;
    this.#dialects = options.dialects ?? [EXECTL_DIALECT];
    const rate = options.failureRate ?? null;
    this.#failures = rate === null ? null : new FailuresByAddress(rate, nowMs);
  }

  /** How many signature checks are remembered right now: for tests and diagnostics. */
  get cachedVerifications(): number {
    return countAll(this.#verified);
  }

  /** How many failed signature checks are remembered right now (expired ones included). */
  get cachedFailures(): number {
    return countAll(this.#failed);
  }

  /**
   * Verifies `token` for `namespace` and returns the caller, or throws a 401 TokenError. With
   * `connection`, a failure counts against its client address, and one past the address's
   * budget is answered 429 `rate limit exceeded` (with `Retry-After`, and `Connection: close`);
   * that connection's later requests are then refused at once while the address's bucket is
   * empty.
   */
  authenticate(token: string, namespace: string, connection?: ClientConnection): TokenCaller {
    const failures = this.#failures;
    if (connection === undefined || failures === null) return this.#authenticate(token, namespace);
    failures.refuseIfRefusedBefore(connection);
    try {
      return this.#authenticate(token, namespace);
    } catch (err) {
      if (err instanceof ExectlError && err.code === 'unauthorized') failures.charge(connection);
      throw err;
    }
  }

  /**
   * For a caller {@link authenticate} returned for the same token and namespace while nothing in
   * the store changed since (the caller's memo makes sure of that): what a fresh authentication
   * would still do differently is done again. The token's time window is checked (false: it no
   * longer holds, authenticate again for the exact 401), a connection refused before is refused
   * again (429), and the key's use is recorded.
   */
  reconfirm(caller: TokenCaller, connection: ClientConnection): boolean {
    try {
      checkTimeWindow(caller.permissions, Math.floor(this.#nowMs() / 1000));
    } catch {
      return false;
    }
    this.#failures?.refuseIfRefusedBefore(connection);
    this.#store.recordKeyUse(caller.principal.keyFingerprint);
    return true;
  }

  /**
   * Wait for this before {@link authenticate} when `connection`'s address is out of failed
   * verifications: a token from it that needs a signature check (not remembered, well-formed,
   * in its time window, signed by a registered key) is verified only at its turn (see
   * verification-turns.ts); null: no need to wait. Rejects with the address's 429 when the
   * connection already waits for a turn, or closes while waiting.
   */
  turnToVerify(
    token: string,
    namespace: string,
    connection: ClientConnection & WaitingConnection,
  ): Promise<void> | null {
    const failures = this.#failures;
    if (failures === null || !failures.isOut(connection)) return null;
    return this.#needsSignatureCheck(token, namespace) ? failures.turn(connection) : null;
  }

  /** Whether verifying `token` would come to its signature check; every step before is cheap. */
  #needsSignatureCheck(token: string, namespace: string): boolean {
    let svc0: string;
    try {
      svc0 = this.#resolveSvc1(canonicalToken(token, this.#dialects), namespace);
    } catch {
      return false;
    }
    const nowMs = this.#nowMs();
    const failure = this.#failed.get(namespace)?.get(svc0);
    if (this.#verified.get(namespace)?.has(svc0) || (failure?.untilMs ?? 0) > nowMs) return false;
    const findKey = (fingerprint: string) => {
      if (this.#store.findKeyByFingerprint(fingerprint) !== undefined) throw REACHES_SIGNATURE;
      return undefined;
    };
    try {
      verifySvc0(svc0, { namespace, nowSeconds: Math.floor(nowMs / 1000), findKey });
    } catch (err) {
      return err === REACHES_SIGNATURE;
    }
    return false;
  }

  #authenticate(token: string, namespace: string): TokenCaller {
    const svc0 = this.#resolveSvc1(canonicalToken(token, this.#dialects), namespace);
    const nowMs = this.#nowMs();
    const nowSeconds = Math.floor(nowMs / 1000);
    let verified = this.#verified.get(namespace)?.get(svc0);
    let record: SshKeyRecord | undefined;
    if (verified === undefined) {
      const failure = this.#failed.get(namespace)?.get(svc0);
      if (failure !== undefined && failure.untilMs > nowMs) {
        throw new TokenError('rejected', undefined, `${failure.logDetail} (remembered)`);
      }
      const findKey = (fp: string) => {
        record = this.#store.findKeyByFingerprint(fp);
        return record === undefined ? undefined : this.#parsed(record);
      };
      try {
        verified = verifySvc0(svc0, { namespace, nowSeconds, findKey });
      } catch (err) {
        // Only against a registered key: that key judges the same token the same way every
        // time, while a key not registered yet may be added in a moment.
        if (record !== undefined && err instanceof TokenError && err.reason === 'rejected') {
          this.#rememberFailure(namespace, svc0, err.logDetail ?? 'rejected', nowMs);
        }
        throw err;
      }
      this.#remember(namespace, svc0, verified);
    } else {
      checkTimeWindow(verified.permissions, nowSeconds);
      record = this.#store.findKeyByFingerprint(verified.fingerprint);
      // Same fingerprint means same blob, so the cached signature check still holds.
      if (record === undefined) {
        throw new TokenError('rejected', undefined, `key ${verified.fingerprint} was removed`);
      }
    }
    return this.#caller(verified, record!);
  }

  /** svc1 → its stored svc0 (step 2); a svc0 passes through unchanged. */
  #resolveSvc1(token: string, namespace: string): string {
    if (tokenKind(token) !== 'svc1') return token;
    const record = isWellFormedSvc1(token) ? this.#store.findSvc1(token) : undefined;
    if (record === undefined) throw new TokenError('rejected', undefined, 'unknown svc1 token');
    if (record.namespace !== namespace) {
      throw new TokenError('rejected', undefined, `svc1 is for namespace ${record.namespace}`);
    }
    return record.svc0;
  }

  /** The registered key, parsed once per distinct stored text. */
  #parsed(record: SshKeyRecord): PublicKey {
    const cached = this.#keys.get(record.fingerprint);
    if (cached !== undefined && cached.text === record.publicKey) return cached.key;
    const key = parsePublicKey(record.publicKey);
    this.#keys.set(record.fingerprint, { text: record.publicKey, key });
    return key;
  }

  #caller(verified: VerifiedToken, key: SshKeyRecord): TokenCaller {
    const account = this.#store.getAccount(key.accountId);
    if (account === undefined) {
      throw new TokenError('rejected', undefined, `no account for key ${verified.fingerprint}`);
    }
    this.#store.recordKeyUse(key.fingerprint);
    return {
      account,
      permissions: verified.permissions,
      principal: {
        accountId: account.id,
        email: account.email,
        userId: account.userId,
        keyFingerprint: key.fingerprint,
        cmds: effectiveCmds(verified.permissions),
        tag: key.tag,
        exp: verified.permissions.exp ?? null,
        via: 'token',
      },
    };
  }

  #remember(namespace: string, svc0: string, verified: VerifiedToken): void {
    // Past the bound, start over: simpler than tracking age across namespaces, and a flood of
    // distinct valid tokens costs one signature check each either way.
    // Namespaces are few (/exec and one per VM address), so counting on a miss is cheap.
    if (this.cachedVerifications >= this.#verifiedLimit) this.#verified.clear();
    let tokens = this.#verified.get(namespace);
    if (tokens === undefined) {
      tokens = new Map();
      this.#verified.set(namespace, tokens);
    }
    tokens.set(svc0, verified);
  }

  #rememberFailure(namespace: string, svc0: string, logDetail: string, nowMs: number): void {
    // As for passed checks: past the bound, start over.
    if (this.cachedFailures >= this.#failedLimit) this.#failed.clear();
    let tokens = this.#failed.get(namespace);
    if (tokens === undefined) {
      tokens = new Map();
      this.#failed.set(namespace, tokens);
    }
    tokens.set(svc0, { logDetail, untilMs: nowMs + FAILED_FOR_MS });
  }
}

function countAll(byNamespace: Map<string, Map<string, unknown>>): number {
  let count = 0;
  for (const tokens of byNamespace.values()) count += tokens.size;
  return count;
}

/**
 * The bearer token of an `Authorization` header (scheme case-insensitive), or the 401 of
 * SPEC §1.5 step 1.
 */
export function bearerToken(header: string | undefined): string {
  const match = header === undefined ? null : /^bearer +(\S+) *$/i.exec(header);
  if (match === null) {
    throw new ExectlError('unauthorized', 'missing or invalid Authorization header', {
      hint: 'send "Authorization: Bearer <token>"; mint one with `exectl mint`',
    });
  }
  return match[1]!;
}
