// Everything `exectl inspect` knows about a token, as one plain object: the --json output as
// is, and the source of the readable text. Its shape is documented in exectl-inspect(1).
import { decodeSvc0Unverified, type DecodedSvc0 } from '../token/decode.js';
import { TokenError, type TokenErrorReason } from '../token/errors.js';
import { isWellFormedSvc1, tokenKind } from '../token/format.js';
import {
  ALL_DIALECTS,
  canonicalToken,
  dialectOfToken,
  EXECTL_DIALECT,
  type Dialect,
} from '../dialects.js';
import { fingerprintOf } from '../token/keys.js';
import { effectiveCmds } from '../token/permissions.js';
import { checkTimeWindow, verifySvc0 } from '../token/verify.js';
import { formatDuration } from '../durations.js';
import { warningsFor, type InspectWarning } from './warnings.js';
import { keyFinderFor, type TrustedKey } from './trusted-keys.js';
import { rfc3339 } from '../time.js';
import { vmOfNamespace } from './vm-token.js';

export interface TimeField {
  unix: number;
  /** RFC 3339, UTC, whole seconds. */
  utc: string;
  /** e.g. `expires in 59m`, `expired 3h ago`, `not valid for another 5m`, `valid since 2d ago`. */
  relative: string;
}

export interface InspectReport {
  kind: 'svc0' | 'svc1' | null;
  /**
   * The real service whose spelling the token uses (`exe.dev` for `exe0.`/`exe1.`, SPEC §12);
   * null for exectl's own `svc0.`/`svc1.` or an unknown prefix.
   */
  compat: string | null;
  /** null for svc1: only the server that issued it can tell. */
  valid: boolean | null;
  reason: TokenErrorReason | null;
  error: string | null;
  /** The permissions JSON exactly as signed. */
  payload: string | null;
  permissions: {
    exp: number | null;
    nbf: number | null;
    cmds: readonly string[] | null;
    ctx_raw: string | null;
  } | null;
  effective_cmds: readonly string[] | null;
  cmds_are_defaults: boolean | null;
  exp: TimeField | null;
  nbf: TimeField | null;
  /** `type` is null when the key is of a type exectl does not support. */
  signer: { type: string | null; fingerprint: string } | null;
  namespace: string | null;
  /** The VM a VM token (namespace `v0@<vm>.<domain>`) is for; its cmds do not apply. */
  vm: string | null;
  hash: string | null;
  size: number;
  warnings: InspectWarning[];
  /** null when not asked for (--verify) or not possible (svc1). */
  signature_verified: boolean | null;
}

/** The report and, when the token is not valid, the token error that says why. */
export interface Inspection {
  report: InspectReport;
  failure: TokenError | undefined;
}

/**
 * Inspects `token` at `nowSeconds`; with `trusted`, also checks its signature offline against
 * those keys for the token's own namespace. `commandNamespace` (the client's `v0@<domain>`)
 * tells a VM token, whose cmds do not apply, from a command token. Token problems are
 * reported, never thrown.
 */
export function inspectToken(
  given: string,
  nowSeconds: number,
  trusted?: readonly TrustedKey[],
  commandNamespace = 'v0@localhost',
): Inspection {
  const dialect = dialectOfToken(given) ?? EXECTL_DIALECT;
  // `exe0.…` is read as the `svc0.…` it spells (the same bytes after the prefix).
  const token = canonicalToken(given, ALL_DIALECTS);
  const kind = tokenKind(token) ?? null;
  const base = { ...emptyReport(kind, Buffer.byteLength(token, 'utf8')), compat: dialect.compat };
  if (kind === 'svc1') {
    if (isWellFormedSvc1(token)) return { report: base, failure: undefined };
    return failed(base, new TokenError('malformed', 'malformed'));
  }
  let decoded: DecodedSvc0;
  try {
    decoded = decodeSvc0Unverified(token);
  } catch (err) {
    if (err instanceof TokenError) return failed(base, err);
    throw err;
  }
  const report = {
    ...describeSvc0(decoded, nowSeconds, commandNamespace, dialect),
    compat: dialect.compat,
  };
  if (trusted !== undefined) report.signature_verified = signatureVerifies(token, decoded, trusted);
  const failure = firstFailure(decoded, nowSeconds, report.signature_verified);
  if (failure === undefined) return { report: { ...report, valid: true }, failure };
  return failed(report, failure);
}

function describeSvc0(
  decoded: DecodedSvc0,
  now: number,
  commandNamespace: string,
  dialect: Dialect,
): InspectReport {
  const p = decoded.permissions;
  const payload = decoded.payload.toString('utf8');
  const namespace = decoded.signature.namespace;
  // An `exe0.` token for a VM is signed for `v0@<vm>.exe.xyz`, whatever the client's domain.
  const ownVmDomain = dialect.vmDomain === null ? undefined : `v0@${dialect.vmDomain}`;
  const vm =
    vmOfNamespace(namespace, commandNamespace) ??
    (ownVmDomain === undefined ? undefined : vmOfNamespace(namespace, ownVmDomain)) ??
    null;
  // The VM proxy never reads cmds: listing them (or the defaults) would suggest they limit it.
  const commands = vm === null;
  return {
    ...emptyReport('svc0', decoded.sizeBytes),
    payload,
    permissions: {
      exp: p.exp ?? null,
      nbf: p.nbf ?? null,
      cmds: p.cmds ?? null,
      ctx_raw: p.ctxRaw ?? null,
    },
    effective_cmds: commands ? effectiveCmds(p) : null,
    cmds_are_defaults: commands ? p.cmds === undefined : null,
    exp: p.exp === undefined ? null : timeField(p.exp, now, 'exp'),
    nbf: p.nbf === undefined ? null : timeField(p.nbf, now, 'nbf'),
    signer: {
      type: decoded.signer?.type ?? null,
      fingerprint: decoded.signer?.fingerprint ?? fingerprintOf(decoded.signature.publicKey),
    },
    namespace,
    vm,
    hash: decoded.signature.hashAlgorithm,
    warnings: warningsFor(p).filter((w) => commands || w.code !== 'parent_without_subcommands'),
  };
}

/** Why the token is not valid now, in the order the server checks (§1.5), or undefined. */
function firstFailure(
  decoded: DecodedSvc0,
  now: number,
  verified: boolean | null,
): TokenError | undefined {
  if (decoded.signer === undefined) {
    return new TokenError('unsupported_key', 'unsupported key type');
  }
  try {
    checkTimeWindow(decoded.permissions, now);
  } catch (err) {
    if (err instanceof TokenError) return err;
    throw err;
  }
  return verified === false ? new TokenError('rejected', 'signature not verified') : undefined;
}

/**
 * Checks the signature with verifySvc0 against the trusted keys, for the namespace the token
 * names. The time window is judged separately, so the check runs at a moment inside it: an
 * expired token can still be shown to carry a good signature.
 */
function signatureVerifies(
  token: string,
  decoded: DecodedSvc0,
  trusted: readonly TrustedKey[],
): boolean {
  const { exp, nbf } = decoded.permissions;
  const namespace = decoded.signature.namespace;
  // nbf (or exp) itself lies inside the window; with neither, any time does.
  const insideWindow = nbf ?? exp ?? 0;
  try {
    verifySvc0(token, {
      namespace,
      nowSeconds: insideWindow,
      findKey: keyFinderFor(trusted, namespace),
    });
    return true;
  } catch (err) {
    if (err instanceof TokenError) return false;
    throw err;
  }
}

function timeField(unix: number, now: number, field: 'exp' | 'nbf'): TimeField {
  const span = formatDuration(Math.abs(unix - now));
  const relative =
    field === 'exp'
      ? now > unix
        ? `expired ${span} ago`
        : `expires in ${span}`
      : now < unix
        ? `not valid for another ${span}`
        : `valid since ${span} ago`;
  return { unix, utc: rfc3339(unix), relative };
}

function failed(report: InspectReport, failure: TokenError): Inspection {
  return {
    report: { ...report, valid: false, reason: failure.reason, error: failure.message },
    failure,
  };
}

function emptyReport(kind: InspectReport['kind'], size: number): InspectReport {
  return {
    kind,
    compat: null,
    valid: null,
    reason: null,
    error: null,
    payload: null,
    permissions: null,
    effective_cmds: null,
    cmds_are_defaults: null,
    exp: null,
    nbf: null,
    signer: null,
    namespace: null,
    vm: null,
    hash: null,
    size,
    warnings: [],
    signature_verified: null,
  };
}
