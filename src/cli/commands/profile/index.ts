// `exectl profile add|list|use|remove` (SPEC §8): write the profiles of
// $XDG_CONFIG_HOME/exectl/config.json that `--profile` and EXECTL_PROFILE name, instead of by
// hand. The format is in exectl(1), PROFILES; the command in exectl-profile(1).
import type { Command } from 'commander';
import { ExectlError } from '../../../errors.js';
import type { CliCommand } from '../../command.js';
import type { CliContext, GlobalFlags } from '../../context.js';

const PROFILE_HELP = `
Profiles live in $XDG_CONFIG_HOME/exectl/config.json (else ~/.config),
written with mode 0600; --profile NAME or EXECTL_PROFILE picks one for a
command, else the default one set by "profile use". Details: exectl-profile(1).

Examples:
  exectl profile add local2 --url http://127.0.0.1:8070
  exectl profile add work --url https://exec.example.com --key ~/.ssh/id_work
  exectl profile use local2
  exectl profile list
  exectl profile remove work`;

const loadEdit = () => import('./edit.js');

export const command: CliCommand = {
  declare(cmd: Command, contextFor) {
    cmd
      .description('add, list, choose and remove profiles (a server URL, key, namespace)')
      // Takes what no subcommand matched, to name it in the error (commander would count it).
      .argument('[command]')
      .usage('<command> [arguments]')
      .addHelpText('after', PROFILE_HELP);
    cmd
      .command('add')
      .description('add a profile: --url (required), --key, --namespace')
      .argument('<name>', 'the profile name')
      .option('--key <path>', 'the private key to sign with')
      .option('--namespace <ns>', 'the signature namespace, e.g. v0@example.com')
      .addHelpText('after', '\nExample:\n  exectl profile add work --url https://exec.example.com')
      .action(async (name: string, options: { key?: string; namespace?: string }, self) => {
        const { ctx, globals } = nested(self, contextFor);
        const { key, namespace } = options;
        await (await loadEdit()).runProfileAdd(ctx, name, { url: globals.url, key, namespace });
      });
    cmd
      .command('list')
      .description('list the profiles; the one in use is marked *')
      .action(async (_options: unknown, self: Command) => {
        const { ctx, globals } = nested(self, contextFor);
        (await import('./list.js')).runProfileList(ctx, globals.profile);
      });
    cmd
      .command('use')
      .description('make a profile the default one')
      .argument('<name>', 'the profile name')
      .action(async (name: string, _options: unknown, self: Command) => {
        const { ctx, globals } = nested(self, contextFor);
        await (await loadEdit()).runProfileUse(ctx, name, globals.profile);
      });
    cmd
      .command('remove')
      .description('remove a profile (and the default, if it was the one)')
      .argument('<name>', 'the profile name')
      .action(async (name: string, _options: unknown, self: Command) => {
        const { ctx } = nested(self, contextFor);
        await (await loadEdit()).runProfileRemove(ctx, name);
      });
  },
  // Only its subcommands run.
  run: (_ctx, operands) => {
    const [word] = operands;
    const what = word === undefined ? 'needs a subcommand' : `has no subcommand "${String(word)}"`;
    throw new ExectlError('usage', `exectl profile ${what}: one of add, list, use, remove`, {
      hint: 'see "exectl profile --help"',
    });
  },
};

function nested(
  self: Command,
  contextFor: (self: Command) => CliContext,
): { ctx: CliContext; globals: GlobalFlags } {
  return { ctx: contextFor(self), globals: self.optsWithGlobals<GlobalFlags>() };
}
