// `exectl mint` flags -> the compact permissions JSON to sign (SPEC §8 mint, §1.3), and the
// warnings to print at mint time (inspect's among them).
import { ExectlError } from '../../../errors.js';
import { TokenError } from '../../../token/errors.js';
import { parsePermissions, serializePermissions } from '../../../token/permissions.js';
import { warningsFor } from '../../../inspection/warnings.js';
import { COMMAND_CATALOG } from '../../../command-catalog.js';
import { suggestionsFor, withSuggestions } from '../../../did-you-mean.js';
import { parseTimeFlag } from '../../../durations.js';

export const DEFAULT_EXP = '1h';

/** The mint flags that shape the permissions, as the user typed them. */
export interface PermissionFlags {
  exp?: string;
  nbf?: string;
  /** Each `--cmds` value as given; entries are split at commas here. */
  cmds?: readonly string[];
  ctx?: string;
}

interface MintPayload {
  /** Compact permissions JSON, already checked against SPEC §1.3. */
  payload: string;
  /** Things the user should know about the token (for stderr). */
  warnings: string[];
}

/** Builds the permissions JSON for `flags` at time `nowSeconds`, or throws a usage error. */
export function buildMintPayload(flags: PermissionFlags, nowSeconds: number): MintPayload {
  const warnings: string[] = [];
  const nbf = flags.nbf === undefined ? undefined : parseTimeFlag('--nbf', flags.nbf, nowSeconds);
  // A duration in --exp counts from the start of validity: `--nbf 1h` alone is valid from in
  // one hour until in two, not for the one second between its nbf and a default exp.
  const expText = flags.exp ?? DEFAULT_EXP;
  const exp = expText === 'never' ? undefined : parseTimeFlag('--exp', expText, nbf ?? nowSeconds);
  if (exp === undefined) {
    warnings.push('the token never expires (--exp never): it works until its key is removed');
  } else if (exp <= nowSeconds) {
    warnings.push('--exp is in the past: the token is already expired');
  }
  if (nbf !== undefined && exp !== undefined && nbf > exp) {
    throw new ExectlError('usage', '--nbf is after --exp: the token would never be valid', {
      hint: 'choose an --nbf before the --exp',
    });
  }
  const cmds = flags.cmds === undefined ? undefined : splitCmds(flags.cmds);
  const ctxRaw = flags.ctx === undefined ? undefined : checkCtx(flags.ctx);
  const payload = usageOnTokenError('the permissions would be rejected', () =>
    serializePermissions({ exp, nbf, cmds, ctxRaw }),
  );
  // What `exectl inspect` would warn about, said now (its "no exp" is the warning above).
  const permissions = parsePermissions(Buffer.from(payload, 'utf8'));
  for (const warning of warningsFor(permissions)) {
    if (warning.code !== 'no_exp') warnings.push(warning.message);
  }
  for (const cmd of cmds ?? []) {
    const unknown = unknownCommandWarning(cmd);
    if (unknown !== undefined) warnings.push(unknown);
  }
  return { payload, warnings };
}

/**
 * A warning for a `--cmds` entry that names no command of exectl's (`lss`), with the nearest
 * ones: it would allow nothing. Only a warning: the token may be for a server with commands of
 * its own. A group (`ssh-key`) and `ssh <vm>` are known.
 */
function unknownCommandWarning(cmd: string): string | undefined {
  const paths = COMMAND_CATALOG.map((entry) => entry.path);
  const known =
    paths.includes(cmd) ||
    paths.some((path) => path.startsWith(`${cmd} `)) ||
    /^ssh [a-z][a-z0-9-]*$/.test(cmd);
  if (known) return undefined;
  const message = `--cmds "${cmd}" is no command of exectl's: a token with it does not allow it`;
  return withSuggestions(message, suggestionsFor(cmd, paths));
}

/** `["whoami, ls", "ssh-key list"]` -> `["whoami", "ls", "ssh-key list"]`. */
function splitCmds(values: readonly string[]): string[] {
  return values.flatMap((value) =>
    value.split(',').map((entry) => {
      const cmd = entry.trim();
      if (cmd === '') {
        throw new ExectlError('usage', `--cmds "${value}" has an empty entry`, {
          hint: 'list command paths separated by commas, e.g. --cmds "whoami,ssh-key list"',
        });
      }
      return cmd;
    }),
  );
}

/**
 * The ctx text to put into the payload verbatim. Whitespace around the value is not part of
 * it and is dropped; a line break inside would break §1.3 rule 2, so it is refused here with
 * a message about --ctx rather than about the whole payload.
 */
function checkCtx(ctx: string): string {
  const value = ctx.trim();
  if (/[\r\n]/.test(value)) {
    throw new ExectlError('usage', '--ctx must be on one line: it contains a line break', {
      hint: 'write the JSON compactly, e.g. --ctx \'{"ticket":42}\'',
    });
  }
  try {
    JSON.parse(value);
  } catch {
    throw new ExectlError('usage', '--ctx is not one valid JSON value', {
      hint: 'quote it for the shell, e.g. --ctx \'{"ticket":42}\'',
    });
  }
  // The token rules go further than JSON.parse (duplicate keys at any depth, for one).
  usageOnTokenError('--ctx is not acceptable', () => serializePermissions({ ctxRaw: value }));
  return value;
}

/** Runs `build`; a token-rule failure becomes a usage error that says what was refused. */
function usageOnTokenError<T>(what: string, build: () => T): T {
  try {
    return build();
  } catch (err) {
    if (!(err instanceof TokenError)) throw err;
    // TokenError messages read "invalid token: <reason>"; here there is no token yet.
    const reason = err.message.replace(/^invalid token: /, '');
    throw new ExectlError('usage', `${what}: ${reason}`, {
      hint: 'check --exp, --nbf, --cmds and --ctx against exectl-mint(1)',
    });
  }
}
