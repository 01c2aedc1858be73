// `exectl serve` (SPEC §7): the embedded server, and `serve accounts add|list|remove`,
// `serve reset`, `serve export` and `serve import` for a data folder offline. Its folder is
// the only part of the CLI that reaches src/service/.

import { Option, type Command } from 'commander';
import { withValues } from '../../completion-values.js';
import { LOG_LEVELS, RUNTIMES } from './choices.js';
import { COMPAT_NAMES } from '../../../dialects.js';
import type { CliCommand } from '../../command.js';
import type { CliContext } from '../../context.js';
import type { DataFolder, ServeFlags } from './options.js';

// The service (through options.ts too) and the store are loaded only when a serve command
// runs, never for `--help` or completion.
const loadAccounts = () => import('./accounts.js');

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

const SERVE_HELP = `
Each flag can also be set as EXECTL_<NAME>: EXECTL_LISTEN, EXECTL_SSH_LISTEN,
EXECTL_DATA, EXECTL_EPHEMERAL=1, EXECTL_AUTHORIZED_KEY=file1:file2, ...
A flag wins over its variable.

The first start on an empty data folder creates the owner account (--owner,
else git config user.email, else $USER@localhost) with the keys of
--authorized-key, else ~/.ssh/*.pub. The banner and the logs go to stderr.
Ctrl-C (SIGINT) or SIGTERM stops the server cleanly; a second one forces it.
Details and the seed file format: exectl-serve(1).

Examples:
  exectl serve
  exectl serve --ephemeral --listen 127.0.0.1:0 --runtime process
  exectl serve --data ./state --seed seed.json --rate-limit 0
  exectl serve accounts add ada@example.com --key ada.pub
  exectl serve reset --data ./state
  exectl serve export --data ./state --out state.json
  exectl serve import state.json --data ./copy`;

export const command: CliCommand = {
  declare(cmd: Command, contextFor) {
    cmd
      .description('run the whole service locally: /exec, SSH, VMs, reflection')
      .option('--listen <addr>', 'HTTP listener for /exec and the VM proxy (127.0.0.1:7070)')
      .option('--ssh-listen <addr>', 'SSH listener, or "off" (127.0.0.1:7022)')
      .option('--reflection-listen <addr>', 'reflection listener for VMs (127.0.0.1:7071)')
      .option(
        '--smtp-listen <addr>',
        'SMTP listener taking mail for VMs, or "off" (127.0.0.1:7025)',
      )
      .option('--data <dir>', 'data folder (default $XDG_DATA_HOME/exectl)')
      .option('--ephemeral', 'use a fresh temporary data folder, deleted at exit')
      .option('--domain <name>', 'domain of namespaces and VM hosts (localhost)')
      .option('--vm-domain <name>', 'domain of VM tokens and VM hosts (--domain)')
      .addOption(
        withValues(
          new Option('--compat <service>', "also speak the real service's names: exe.dev"),
          COMPAT_NAMES,
        ),
      )
      .option('--owner <email>', 'owner account made on an empty data folder')
      .option(
        '--authorized-key <file>',
        "the owner's public keys (default ~/.ssh/*.pub); repeatable",
        collect,
      )
      .option('--tls-cert <file>', 'serve HTTPS with this certificate (needs --tls-key)')
      .option('--tls-key <file>', 'private key of --tls-cert')
      .addOption(
        withValues(
          new Option('--runtime <kind>', 'VM runtime: auto, bwrap or process (auto)'),
          RUNTIMES,
        ),
      )
      .option('--rate-limit <n/dur>', 'requests per key: N/DURATION, or 0 for none (60/60s)')
      .option('--seed <file>', 'JSON of accounts, keys, VMs, integrations applied at start')
      .option('--max-vm-memory <size>', "most memory a VM may get (the host's)")
      .option('--max-vm-cpus <n>', "most CPUs a VM may get (the host's)")
      .option('--max-vm-disk <size>', "largest VM disk (the data folder's file system)")
      .option('--max-vms-per-account <n>', 'most VMs one account may own (32)')
      .addOption(
        withValues(
          new Option('--log-level <level>', 'debug, info, warn or error (info)'),
          LOG_LEVELS,
        ),
      )
      .option('--registry-mirror <url>', 'pull Docker Hub images from this mirror (new --image)')
      .option(
        '--insecure-registry <host[:port]>',
        'pull from this registry without TLS verification; repeatable',
        collect,
      )
      .option(
        '--allow-private-targets',
        "let integrations forward to loopback, link-local and this host's addresses",
      )
      .addHelpText('after', SERVE_HELP);
    declareAccounts(
      cmd.command('accounts').description('manage the accounts of a data folder'),
      contextFor,
    );
    cmd
      .command('mail')
      .description('show the outbox: the mail VMs sent their owners (nothing is sent out)')
      .option('--json', 'print JSON: {"messages":[{"to","from_vm","subject","body","sent_at"}]}')
      .action(async (options: { json?: boolean }, self: Command) => {
        const { ctx, data } = await nestedRun(self, contextFor);
        return (await import('./mail.js')).runMail(ctx, options.json === true, data);
      });
    cmd
      .command('reset')
      .description('empty a data folder: accounts, keys, VMs and their disks, integrations')
      .option('-y, --yes', 'do not ask for confirmation on a terminal')
      .addHelpText(
        'after',
        `
Works offline on the data folder of --data (or EXECTL_DATA, else the default)
and is refused while a server runs on it. Gives the VMs' host-wide id ranges
back. On a terminal it asks first (--yes skips the question); without one it
proceeds. The SSH host key is kept; the next exectl serve bootstraps the owner
again, as on a first start.

Example:
  exectl serve reset --data ./state --yes`,
      )
      .action(async (options: { yes?: boolean }, self: Command) => {
        const { ctx, data } = await nestedRun(self, contextFor);
        return (await import('./reset.js')).runReset(ctx, data, options);
      });
    declareExportImport(cmd, contextFor);
  },
  run: async (ctx, _operands, options) =>
    (await import('./run.js')).runServe(ctx, options as ServeFlags, process),
};

function declareExportImport(cmd: Command, contextFor: (self: Command) => CliContext): void {
  cmd
    .command('export')
    .description('write the state of a data folder as a --seed file')
    .option('--out <file>', 'write to this file (mode 0600) instead of standard output')
    .option('--with-secrets', "include the integrations' headers (API keys, tokens)")
    .addHelpText(
      'after',
      `
Works offline on the data folder of --data (or EXECTL_DATA, else the default)
and is refused while a server runs on it. Writes accounts, keys, VMs (tags,
comment, port, visibility, env, setup script, limits, shares), team members
and integrations; not the VM disks. Importing the file into an empty folder
gives the same ls, ssh-key list, share show, team members and
integrations list. Details: exectl-serve(1), EXPORT AND IMPORT.

Examples:
  exectl serve export --data ./state > state.json
  exectl serve export --data ./state --with-secrets --out backup.json`,
    )
    .action(async (options: { out?: string; withSecrets?: boolean }, self: Command) => {
      const { ctx, data } = await nestedRun(self, contextFor);
      return (await import('./export.js')).runExport(ctx, data, options);
    });
  cmd
    .command('import')
    .description('apply a --seed file (or an export) to a data folder')
    .argument('<file>', 'the seed or export file')
    .addHelpText(
      'after',
      `
Works offline on the data folder of --data (or EXECTL_DATA, else the default;
created if missing) and is refused while a server runs on it. Makes the same
changes as a start with --seed FILE: what the file names is created or
updated, nothing is deleted; VMs are created as new creates them, setup
script included (serve's --runtime applies). Lists each change.

Example:
  exectl serve import state.json --data ./copy`,
    )
    .action(async (file: string, _options: unknown, self: Command) => {
      const ctx = contextFor(self);
      const flags = self.optsWithGlobals<ServeFlags>();
      return (await import('./import.js')).runImport(ctx, flags, file);
    });
}

function declareAccounts(accounts: Command, contextFor: (self: Command) => CliContext): void {
  accounts.addHelpText(
    'after',
    `
These work offline on the data folder of --data (or EXECTL_DATA, else the
default), and are refused while a server runs on it.`,
  );
  accounts
    .command('add')
    .description('create an account (or add keys to it)')
    .argument('<email>', 'the account email')
    .option('--key <pubkey-file>', 'a public key for the account; repeatable', collect)
    .action(async (email: string, options: { key?: string[] }, self: Command) => {
      const { ctx, data } = await nestedRun(self, contextFor);
      return (await loadAccounts()).runAccountsAdd(ctx, email, options.key ?? [], data);
    });
  accounts
    .command('list')
    .description('list the accounts with their keys')
    .option('--json', 'print JSON: {"accounts":[{"email","user_id","created_at","ssh_keys"}]}')
    .action(async (options: { json?: boolean }, self: Command) => {
      const { ctx, data } = await nestedRun(self, contextFor);
      return (await loadAccounts()).runAccountsList(ctx, options.json === true, data);
    });
  accounts
    .command('remove')
    .description('remove an account with its keys (refused while it owns VMs)')
    .argument('<email>', 'the account email')
    .action(async (email: string, _options: unknown, self: Command) => {
      const { ctx, data } = await nestedRun(self, contextFor);
      return (await loadAccounts()).runAccountsRemove(ctx, email, data);
    });
}

/** The context and data folder of a nested command (serve's --data, --ephemeral). */
async function nestedRun(
  self: Command,
  contextFor: (self: Command) => CliContext,
): Promise<{ ctx: CliContext; data: DataFolder }> {
  const ctx = contextFor(self);
  const { dataFolder } = await import('./options.js');
  return { ctx, data: dataFolder(self.optsWithGlobals<ServeFlags>(), ctx.env) };
}
