import { commandHelp, commandListing } from '../dispatch/help-doc.js';
import type { CommandDefinition } from '../dispatch/types.js';

/**
 * `help` — the top-level commands; `help all` — every command and subcommand (groups
 * included, parents first); `help <path...>` — that command's help, exactly what
 * `<path> --help` answers, but needing only the `help` permission. An unknown path is 404.
 * Works with any registry, whatever its `Deps`.
 */
export const helpCommand: CommandDefinition<unknown> = {
  path: 'help',
  description: 'List the commands, or show how to use one',
  usage: 'help [all | <command>...]',
  flags: [],
  args: [{ name: 'command', required: false, variadic: true }],
  examples: ['help', 'help all', 'help ssh-key list', 'ls --help'],
  mutates: false,
  async run(ctx, input) {
    const [first, ...more] = input.args;
    const registry = ctx.registry;
    if (first === undefined) return { kind: 'json', data: commandListing(registry.topLevel()) };
    if (first === 'all' && more.length === 0) {
      return { kind: 'json', data: commandListing(registry.all()) };
    }
    return { kind: 'json', data: commandHelp(registry.lookup(input.args)) };
  },
};
