// The bearer token of a request (SPEC §8 run): `--token`, `EXECTL_TOKEN`, the profile's token,
// or, with none of these, a token minted on the spot that lives 5 minutes and allows exactly
// the command being sent.
import { ExectlError } from '../errors.js';
import type { Signer } from '../token/keys.js';
import { mintSvc0 } from '../token/mint.js';
import { serializePermissions } from '../token/permissions.js';
import { chooseSigner } from '../token/signer.js';
import type { CliContext } from './context.js';
import { passphraseSource } from './prompt.js';
import { homeDir, loadConfigFile, type Settings } from './settings.js';

/** How long a token minted for one request lives. */
export const REQUEST_TOKEN_LIFETIME_SECONDS = 5 * 60;

/**
 * The permissions of a token for one request: `{"exp":<now + 5 min>,"cmds":[scope, ...grants]}`.
 * `grants` are what the command itself hands on (see PreparedLine.grants); usually none.
 */
export function requestTokenPayload(
  scope: string,
  nowSeconds: number,
  grants: readonly string[] = [],
): string {
  const cmds = [...new Set([scope, ...grants])];
  return serializePermissions({ exp: nowSeconds + REQUEST_TOKEN_LIFETIME_SECONDS, cmds });
}

/** Mints the token of one request: {@link requestTokenPayload} signed for `namespace`. */
export function mintRequestToken(opts: {
  signer: Signer;
  namespace: string;
  scope: string;
  grants?: readonly string[];
  nowSeconds: number;
}): Promise<string> {
  const payload = requestTokenPayload(opts.scope, opts.nowSeconds, opts.grants);
  return mintSvc0(payload, opts.signer, opts.namespace);
}

/** The signing key the settings choose (SPEC §1.4 order), asking a passphrase when needed. */
export function settingsSigner(ctx: CliContext, settings: Settings): Promise<Signer> {
  return chooseSigner({
    keyPath: settings.keyPath,
    agentSocket: ctx.env.SSH_AUTH_SOCK || undefined,
    homeDir: homeDir(ctx.env),
    passphrase: passphraseSource(ctx),
  });
}

/** A token the user configured: `--token`, then `EXECTL_TOKEN`, then the profile's `token`. */
export function configuredToken(
  ctx: CliContext,
  settings: Settings,
  flag: string | undefined,
): string | undefined {
  const given = flag || ctx.env.EXECTL_TOKEN;
  if (given) return given.trim();
  if (settings.profile === undefined) return undefined;
  // Settings leave the token out (only requests need it); the file is small and read again.
  const profiles = loadConfigFile(ctx.env)?.profiles ?? {};
  return Object.hasOwn(profiles, settings.profile) ? profiles[settings.profile]?.token : undefined;
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
  grants: readonly string[] = [],
): Promise<string> {
  const configured = configuredToken(ctx, settings, flag);
  if (configured !== undefined) return configured;
  if (scope === undefined) {
    throw new ExectlError('usage', 'cannot tell which command the line runs: it starts quoted', {
      hint: 'write the command name unquoted, or give a token with --token',
    });
  }
  return mintRequestToken({
    signer: await settingsSigner(ctx, settings),
    namespace: settings.namespace,
    scope,
    grants,
    nowSeconds: ctx.clock.nowSeconds(),
  });
}
