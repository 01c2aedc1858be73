// `exectl inspect` (SPEC §8): decode a token and check it offline. Exit 0 valid, 1 invalid or
// expired (or not verified), 2 malformed; main.ts maps the returned outcome.
import type { Command } from 'commander';
import { ExectlError } from '../../../errors.js';
import { tokenKind } from '../../../token/format.js';
import { ALL_DIALECTS, canonicalToken } from '../../../dialects.js';
import type { CliCommand, CommandOutcome } from '../../command.js';
import type { CliContext } from '../../context.js';
import { styleFor } from '../../output.js';
import { inspectToken } from '../../../inspection/report.js';
import { renderReport } from './render.js';
import { readTrustedKeys } from './verify-keys.js';

interface InspectOptions {
  verify?: string;
  json?: boolean;
}

/** Far above the 8192-byte token limit; only keeps a stray huge input out of memory. */
const MAX_STDIN_BYTES = 65_536;

/** Inspects the token given as `tokenArg` (or on stdin for `-` or none) and prints the report. */
async function runInspect(
  ctx: CliContext,
  tokenArg: string | undefined,
  options: InspectOptions,
): Promise<CommandOutcome> {
  const token = await readToken(ctx, tokenArg);
  const trusted = options.verify === undefined ? undefined : readTrustedKeys(options.verify);
  if (trusted !== undefined && tokenKind(canonicalToken(token, ALL_DIALECTS)) === 'svc1') {
    throw new ExectlError('usage', '--verify cannot check a svc1 token: it is opaque', {
      hint: 'only the server that issued it can check it; inspect the svc0 it was made from',
    });
  }
  const { report, failure } = inspectToken(
    token,
    ctx.clock.nowSeconds(),
    trusted,
    clientNamespace(ctx),
  );
  if (options.json) {
    ctx.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else if (failure !== undefined && report.payload === null) {
    // Nothing could be decoded: the error line says all there is.
    throw new ExectlError('token_malformed', failure.message, {
      hint: 'check that the whole token was copied',
    });
  } else {
    ctx.stdout.write(renderReport(report, await styleFor(ctx), options.verify));
  }
  if (failure === undefined) return undefined;
  return new ExectlError(failure.structural ? 'token_malformed' : 'token_invalid', failure.message);
}

async function readToken(ctx: CliContext, tokenArg: string | undefined): Promise<string> {
  if (tokenArg !== undefined && tokenArg !== '-') return tokenArg;
  if (tokenArg === undefined && ctx.stdin.isTTY === true) {
    throw new ExectlError('usage', 'no token given', {
      hint: 'pass it as an argument, or pipe it in: echo "$TOKEN" | exectl inspect',
    });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.stdin) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += bytes.length;
    if (size > MAX_STDIN_BYTES) {
      throw new ExectlError('usage', `stdin holds more than ${MAX_STDIN_BYTES} bytes`, {
        hint: 'a token is at most 8192 bytes: pipe in just the token',
      });
    }
    chunks.push(bytes);
  }
  const token = Buffer.concat(chunks).toString('utf8').trim();
  if (token === '') {
    throw new ExectlError('usage', 'no token on stdin', {
      hint: 'pipe in a token, or pass it as an argument',
    });
  }
  return token;
}

export const command: CliCommand = {
  declare(cmd: Command) {
    cmd
      .description('decode a token and check it offline: permissions, times, signer, warnings')
      .argument('[token]', 'the token; "-" or none reads it from stdin')
      .option(
        '--verify <file>',
        'check the signature against a .pub, authorized_keys or allowed_signers file',
      )
      .option('--json', 'print one JSON object (shape in exectl-inspect(1))')
      .addHelpText(
        'after',
        `
Never verifies unless --verify is given: without it the signer is only what the token claims.

Exit codes:
  0 valid (svc1: well-formed), 1 invalid, expired or not verified, 2 malformed

Examples:
  exectl inspect "$TOKEN"
  exectl mint | exectl inspect --verify ~/.ssh/id_ed25519.pub
  exectl inspect --json - < token.txt`,
      );
  },
  run: (ctx, operands, options) =>
    runInspect(ctx, operands[0] as string | undefined, options as InspectOptions),
};

/**
 * The client's command namespace, which tells a VM token (`v0@<vm>.<domain>`) apart; undefined
 * (inspect's default, `v0@localhost`) when the settings cannot be read: inspect reads a token
 * offline, and a broken config file must not stop it.
 */
function clientNamespace(ctx: CliContext): string | undefined {
  try {
    return ctx.settings().namespace;
  } catch (err) {
    if (err instanceof ExectlError) return undefined;
    throw err;
  }
}
