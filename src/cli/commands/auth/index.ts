// `exectl auth status` (SPEC §8): the URL and profile in use, each key exectl could sign with
// in the order it tries them (exec/candidates.ts) and its source, which one signs, and whether
// the server knows it.
import type { Command } from 'commander';
import { ExectlError } from '../../../errors.js';
import type { Signer } from '../../../token/keys.js';
import type { CliCommand, CommandOutcome } from '../../command.js';
import type { CliContext } from '../../context.js';
import { firstSigner, signingCandidates, type Candidate } from '../../exec/candidates.js';
import { withoutCredentials } from '../../exec/http.js';
import { whoamiWith } from '../../exec/whoami-check.js';
import { printable } from '../../output.js';
import type { Settings } from '../../settings.js';

/** Prints the status; exits 0 when the key that signs is known to the server, else 3. */
async function runAuthStatus(ctx: CliContext, options: { key?: string }): Promise<CommandOutcome> {
  const settings = ctx.settings({ key: options.key });
  const out = (line: string) => ctx.stdout.write(`${printable(line)}\n`);
  out(`url:     ${withoutCredentials(settings.url)}`);
  out(`profile: ${settings.profile ?? 'none'}`);
  const candidates = await signingCandidates(ctx, settings);
  let signs: { fingerprint: string; source: string; remembered: boolean } | undefined;
  let signError: string | undefined;
  try {
    const signer = await firstSigner(ctx, settings, candidates);
    const first = candidates[0] as Candidate;
    signs = {
      fingerprint: signer.publicKey.fingerprint,
      source: first.source,
      remembered: first.remembered,
    };
  } catch (err) {
    if (!(err instanceof ExectlError)) throw err;
    signError = err.message;
  }
  out('keys, in the order exectl tries them:');
  if (candidates.length === 0) out('  none');
  let signerKnown = false;
  let unreachable: ExectlError | undefined;
  for (const candidate of candidates) {
    const verdict = await serverVerdict(ctx, settings, candidate);
    unreachable ??= verdict.unreachable;
    const marked = signs !== undefined && candidate.fingerprint === signs.fingerprint;
    if (marked && verdict.known) signerKnown = true;
    out(
      `  ${marked ? '*' : ' '} ${candidate.fingerprint ?? '(fingerprint unknown)'}  ${candidate.source}  ${verdict.text}`,
    );
  }
  const remembered = signs?.remembered === true ? ', the key that worked last time' : '';
  out(
    signs === undefined
      ? `signs:   nothing (${signError})`
      : `signs:   key ${signs.fingerprint} from ${signs.source} (marked *${remembered})`,
  );
  if (signerKnown) return undefined;
  // Every key listed first, each "not checked": the error (exit 8) then says why.
  if (unreachable !== undefined) throw unreachable;
  // Thrown, not returned: a nested command's outcome is its action's, and main.ts prints it.
  throw new ExectlError(
    'unauthorized',
    signs === undefined
      ? 'no key can sign'
      : `the key that signs (${signs.fingerprint}) is not known to ${withoutCredentials(settings.url)}`,
    {
      hint:
        signs === undefined
          ? 'create one with `ssh-keygen -t ed25519`, or pass --key PATH'
          : 'pick a known key with --key, or register this one (ssh-key add, or `exectl serve accounts add` on the server)',
    },
  );
}

/**
 * What the server says about one key, from a `whoami` signed by it. A key file is loaded only
 * when that needs no prompt (EXECTL_PASSPHRASE counts).
 */
async function serverVerdict(
  ctx: CliContext,
  settings: Settings,
  candidate: Candidate,
): Promise<{ known: boolean; text: string; unreachable?: ExectlError }> {
  let signer: Signer;
  try {
    signer = await candidate.signer(async () => ctx.env.EXECTL_PASSPHRASE || undefined);
  } catch (err) {
    if (!(err instanceof ExectlError)) throw err;
    return { known: false, text: `not checked: ${err.message}` };
  }
  let who;
  try {
    who = await whoamiWith(ctx, settings, signer);
  } catch (err) {
    if (!(err instanceof ExectlError) || err.code !== 'unreachable') throw err;
    return { known: false, text: 'not checked: the server is unreachable', unreachable: err };
  }
  if (who.email !== undefined) {
    return { known: true, text: `known: ${who.email}, key "${who.keyName}"` };
  }
  if (who.status === 401) return { known: false, text: 'not known to the server' };
  return { known: false, text: `the server answered ${who.status}` };
}

export const command: CliCommand = {
  declare(cmd: Command, contextFor) {
    cmd.description('show which key signs, from where, and whether the server knows it');
    cmd
      .command('status')
      .description('list the keys exectl could sign with and check each against the server')
      .option('--key <path>', 'private key to check first (env EXECTL_KEY)')
      .addHelpText(
        'after',
        `
Lists the URL and profile in use, then every key exectl would try, in order:
--key / EXECTL_KEY / the profile's key (and its copy in ssh-agent), else the key
that worked last time for the server, every ssh-agent key, then
~/.ssh/id_ed25519, id_ecdsa, id_rsa. Each is checked with a whoami signed by it
(a token valid one minute). The key marked * signs.

Exit codes: 0 the key that signs is known to the server, 3 it is not (or no
key can sign), 8 server unreachable.`,
      )
      .action(async (options: { key?: string }, self: Command) => {
        await runAuthStatus(contextFor(self), options);
      });
  },
  // `exectl auth` without a subcommand.
  run: async () => {
    throw new ExectlError('usage', 'exectl auth needs a subcommand', {
      hint: 'run `exectl auth status`',
    });
  },
};
