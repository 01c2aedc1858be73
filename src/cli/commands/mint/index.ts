// `exectl mint` (SPEC §8): sign a permissions JSON with an SSH key; print only the token.
import type { Command } from 'commander';
import { mintSvc0 } from '../../../token/mint.js';
import type { CliCommand, CommandOutcome } from '../../command.js';
import type { CliContext } from '../../context.js';
import { warn } from '../../output.js';
import { settingsSigner } from '../../exec/token.js';
import { vmNamespace } from '../../settings.js';
import { buildMintPayload, DEFAULT_EXP, type PermissionFlags } from './payload.js';

interface MintOptions extends PermissionFlags {
  vm?: string;
  key?: string;
  namespace?: string;
  /** Exchange the svc0 through the server for a svc1 (SPEC §3 svc0-to-svc1). */
  svc1?: boolean;
}

/** Mints a svc0 token for `options` (or its svc1 with --svc1) and writes it, alone, to stdout. */
async function runMint(ctx: CliContext, options: MintOptions): Promise<CommandOutcome> {
  const settings = ctx.settings({ key: options.key, namespace: options.namespace });
  const namespace =
    options.vm === undefined ? settings.namespace : vmNamespace(settings.namespace, options.vm);
  const { payload, warnings } = buildMintPayload(options, ctx.clock.nowSeconds());
  for (const warning of warnings) warn(ctx, warning);
  let token: string;
  if (options.svc1) {
    // Loaded only here: the HTTP client would otherwise be most of a plain mint's start-up.
    const { exchangeForSvc1 } = await import('../../exec/svc1.js');
    token = await exchangeForSvc1(ctx, { payload, namespace, vm: options.vm, settings });
  } else {
    token = await mintSvc0(payload, await settingsSigner(ctx, settings), namespace);
  }
  ctx.stdout.write(`${token}\n`);
  return undefined;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export const command: CliCommand = {
  declare(cmd: Command) {
    cmd
      .description('mint a svc0 token: sign a permissions JSON with your SSH key')
      .option(
        '--exp <when>',
        `expiry: a duration (30s, 15m, 1h, 7d, 2w, 1y), a unix time, or "never" (default: ${DEFAULT_EXP})`,
      )
      .option(
        '--nbf <when>',
        'not valid before: a duration from now or a unix time (a duration in --exp then counts from it)',
      )
      .option(
        '--cmds <list>',
        'command paths the token may run, comma-separated; repeatable',
        collect,
      )
      .option('--ctx <json>', 'any JSON value, forwarded verbatim to a VM server (public!)')
      .option('--vm <name>', 'a VM token: namespace v0@<name>.<domain>')
      .option(
        '--key <path>',
        'private key to sign with (env EXECTL_KEY; else ssh-agent, ~/.ssh/id_*)',
      )
      .option(
        '--namespace <ns>',
        'signature namespace (env EXECTL_NAMESPACE; default v0@localhost)',
      )
      .option('--svc1', 'exchange the token through the server (--url) for a short svc1')
      .addHelpText(
        'after',
        `
Prints only the token on stdout. Passphrase: EXECTL_PASSPHRASE, else asked on the terminal.

Examples:
  exectl mint
  exectl mint --exp 7d --cmds "whoami,ssh-key list"
  exectl mint --vm web --ctx '{"role":"viewer"}'
  TOKEN=$(exectl mint --key ~/.ssh/id_ed25519 --exp 15m)
  exectl mint --svc1 --exp 30d --cmds ls`,
      );
  },
  run: (ctx, _operands, options) => runMint(ctx, options as MintOptions),
};
