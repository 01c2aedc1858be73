// `exectl mint` (SPEC §8): sign a permissions JSON with an SSH key; print only the token.
import type { Command } from 'commander';
import { mintSvc0 } from '../../../token/mint.js';
import type { CliCommand, CommandOutcome } from '../../command.js';
import type { CliContext } from '../../context.js';
import { warn } from '../../output.js';
import { settingsSigner } from '../../exec/token.js';
import { vmNamespace, type Settings } from '../../settings.js';
import { ExectlError } from '../../../errors.js';
import {
  ALL_DIALECTS,
  dialectOfSvc0Prefix,
  EXECTL_DIALECT,
  svc0In,
  type Dialect,
} from '../../../dialects.js';
import { buildMintPayload, DEFAULT_EXP, type PermissionFlags } from './payload.js';

interface MintOptions extends PermissionFlags {
  vm?: string;
  key?: string;
  namespace?: string;
  /** Exchange the svc0 through the server for a svc1 (SPEC §3 svc0-to-svc1). */
  svc1?: boolean;
  /** `svc0` (the default) or `exe0`: the real service's spelling (SPEC §12). */
  prefix?: string;
}

/** Mints a svc0 token for `options` (or its svc1 with --svc1) and writes it, alone, to stdout. */
async function runMint(ctx: CliContext, options: MintOptions): Promise<CommandOutcome> {
  const dialect = prefixDialect(options.prefix);
  const { settings, vmBase } = dialectNamespaces(
    ctx.settings({ key: options.key, namespace: options.namespace }),
    dialect,
    options.namespace ?? ctx.env.EXECTL_NAMESPACE,
  );
  const namespace = options.vm === undefined ? settings.namespace : vmNamespace(vmBase, options.vm);
  const { payload, warnings } = buildMintPayload(options, ctx.clock.nowSeconds());
  for (const warning of warnings) warn(ctx, warning);
  let token: string;
  if (options.svc1) {
    // Loaded only here: the HTTP client would otherwise be most of a plain mint's start-up.
    const { exchangeForSvc1 } = await import('../../exec/svc1.js');
    token = await exchangeForSvc1(ctx, { payload, namespace, vm: options.vm, settings, dialect });
  } else {
    token = svc0In(
      await mintSvc0(payload, await settingsSigner(ctx, settings), namespace),
      dialect,
    );
  }
  ctx.stdout.write(`${token}\n`);
  return undefined;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The dialect whose token prefix `--prefix` names. */
function prefixDialect(prefix: string | undefined): Dialect {
  if (prefix === undefined) return EXECTL_DIALECT;
  const dialect = dialectOfSvc0Prefix(prefix);
  if (dialect === undefined) {
    const known = ALL_DIALECTS.map((d) => d.svc0Prefix.slice(0, -1)).join(' or ');
    throw new ExectlError('usage', `--prefix "${prefix}" is not a token prefix`, {
      hint: `use ${known}`,
    });
  }
  return dialect;
}

/**
 * With another dialect's prefix and no namespace given (`--namespace`, EXECTL_NAMESPACE), the
 * namespace is that service's own, `v0@exe.dev` (SPEC §12), not the profile's or localhost; a
 * VM token then gets its VM domain, `v0@<vm>.exe.xyz`.
 */
function dialectNamespaces(
  settings: Settings,
  dialect: Dialect,
  given: string | undefined,
): { settings: Settings; vmBase: string } {
  if (dialect === EXECTL_DIALECT || (given !== undefined && given !== '')) {
    return { settings, vmBase: settings.namespace };
  }
  return {
    settings: { ...settings, namespace: `v0@${dialect.domain}` },
    vmBase: `v0@${dialect.vmDomain ?? dialect.domain}`,
  };
}

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
      .option(
        '--prefix <prefix>',
        "svc0, or exe0: the real service's spelling, namespace v0@exe.dev (svc0)",
      )
      .addHelpText(
        'after',
        `
Prints only the token on stdout. Passphrase: EXECTL_PASSPHRASE, else asked on the terminal.

Examples:
  exectl mint
  exectl mint --exp 7d --cmds "whoami,ssh-key list"
  exectl mint --vm web --ctx '{"role":"viewer"}'
  TOKEN=$(exectl mint --key ~/.ssh/id_ed25519 --exp 15m)
  exectl mint --svc1 --exp 30d --cmds ls
  exectl mint --prefix exe0 --cmds whoami`,
      );
  },
  run: (ctx, _operands, options) => runMint(ctx, options as MintOptions),
};
