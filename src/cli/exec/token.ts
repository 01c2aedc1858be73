// The bearer token of a request (SPEC §8 run): `--token`, `EXECTL_TOKEN`, the profile's token,
// or, with none of these, a token minted on the spot that lives 5 minutes and allows exactly
// the command being sent.
import { ExectlError } from '../../errors.js';
import { decodeSvc0Unverified } from '../../token/decode.js';
import type { Signer } from '../../token/keys.js';
import { mintSvc0 } from '../../token/mint.js';
import { serializePermissions } from '../../token/permissions.js';
import type { CliContext } from '../context.js';
import { loadConfigFile, type Settings } from '../settings.js';
import { describeCandidate, firstSigner, signingCandidates } from './candidates.js';
import type { Grants } from '../../command-line.js';

/** How long a token minted for one request lives. */
const REQUEST_TOKEN_LIFETIME_SECONDS = 5 * 60;
/** SPEC §1.3: the latest `exp` a token may carry (2100-01-01). */
const LATEST_EXP = 4102444800;

/**
 * The permissions of a token for one request: `{"exp":<now + 5 min>,"cmds":[scope, ...]}`.
 * `grants` are what the command itself hands on (see PreparedLine.grants; usually none): their
 * commands are added, and the token lives as long as what is made from it, plus the 5 minutes
 * (the service judges the new token's lifetime from its own clock, a little later), or has no
 * `exp` when what it makes has none.
 */
export function requestTokenPayload(scope: string, nowSeconds: number, grants?: Grants): string {
  const cmds = [...new Set([scope, ...(grants?.cmds ?? [])])];
  const lifetime = grants === undefined ? 0 : grants.lifetimeSeconds;
  if (lifetime === null) return serializePermissions({ cmds });
  const exp = Math.min(nowSeconds + lifetime + REQUEST_TOKEN_LIFETIME_SECONDS, LATEST_EXP);
  return serializePermissions({ exp, cmds });
}

/** Mints the token of one request: {@link requestTokenPayload} signed for `namespace`. */
export function mintRequestToken(opts: {
  signer: Signer;
  namespace: string;
  scope: string;
  grants?: Grants | undefined;
  nowSeconds: number;
}): Promise<string> {
  const payload = requestTokenPayload(opts.scope, opts.nowSeconds, opts.grants);
  return mintSvc0(payload, opts.signer, opts.namespace);
}

/**
 * The key that signs now for `settings` (candidates.ts: the key that worked last time for the
 * server, else SPEC §1.4's order), asking a passphrase when needed.
 */
export async function settingsSigner(ctx: CliContext, settings: Settings): Promise<Signer> {
  return firstSigner(ctx, settings, await signingCandidates(ctx, settings));
}

/** A request's bearer token and, for messages, which key signed it and where it came from. */
export interface Credential {
  token: string;
  /** e.g. `key SHA256:… from ssh-agent`, `the token given with --token (key SHA256:…)`. */
  signedBy: string;
}

/** A token the user configured: `--token`, then `EXECTL_TOKEN`, then the profile's `token`. */
export function configuredToken(
  ctx: CliContext,
  settings: Settings,
  flag: string | undefined,
): string | undefined {
  return configuredCredential(ctx, settings, flag)?.token;
}

/** The configured token (see {@link configuredToken}) and, for 401s, what it is. */
export function configuredCredential(
  ctx: CliContext,
  settings: Settings,
  flag: string | undefined,
): Credential | undefined {
  if (flag) return givenToken(flag.trim(), 'given with --token');
  if (ctx.env.EXECTL_TOKEN) return givenToken(ctx.env.EXECTL_TOKEN.trim(), 'from EXECTL_TOKEN');
  if (settings.profile === undefined) return undefined;
  // Settings leave the token out (only requests need it); the file is small and read again.
  const profiles = loadConfigFile(ctx.env)?.profiles ?? {};
  const token = Object.hasOwn(profiles, settings.profile)
    ? profiles[settings.profile]?.token
    : undefined;
  return token === undefined ? undefined : givenToken(token, `from profile "${settings.profile}"`);
}

/** A token the user gave: a svc0 names its key (read offline); a svc1 hides it. */
function givenToken(token: string, from: string): Credential {
  let key = '';
  try {
    const signer = decodeSvc0Unverified(token).signer;
    if (signer !== undefined) key = ` (signed by key ${signer.fingerprint})`;
  } catch {
    // A svc1, or a token that does not decode: the server will say what is wrong with it.
  }
  return { token, signedBy: `the token ${from}${key}` };
}

/**
 * The token to send: the configured one, else one minted with the settings' key that allows
 * exactly `scope` (undefined `scope`: the command line does not say which command it runs),
 * plus the `grants` the command hands on.
 *
 * @throws ExectlError `usage` when a token must be minted but `scope` is unknown; `key_error`
 *   when no key can sign.
 */
export async function requestToken(
  ctx: CliContext,
  settings: Settings,
  flag: string | undefined,
  scope: string | undefined,
  grants?: Grants,
): Promise<Credential> {
  const configured = configuredCredential(ctx, settings, flag);
  if (configured !== undefined) return configured;
  if (scope === undefined) throw unknownScope();
  const candidates = await signingCandidates(ctx, settings);
  const signer = await firstSigner(ctx, settings, candidates);
  const token = await mintRequestToken({
    signer,
    namespace: settings.namespace,
    scope,
    grants,
    nowSeconds: ctx.clock.nowSeconds(),
  });
  return { token, signedBy: describeCandidate(candidates[0]!) };
}

/** A token must be minted for a line whose command cannot be told (it starts quoted). */
export function unknownScope(): ExectlError {
  return new ExectlError('usage', 'cannot tell which command the line runs: it starts quoted', {
    hint: 'write the command name unquoted, or give a token with --token',
  });
}
