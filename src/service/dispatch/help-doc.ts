import type { CommandNode, FlagSpec } from './types.js';
import type {
  CommandHelp,
  CommandListing,
  CommandSummary,
  FlagHelp,
} from '../../text-views/help.js';

export type { CommandHelp, CommandListing, CommandSummary, FlagHelp };

/** The `{name, usage, description}` of a command or group. */
function summarize(node: CommandNode<unknown>): CommandSummary {
  return { name: node.path, usage: node.usage, description: node.description };
}

/**
 * The help of a command or group: its flags (without the universal `--help` and `--json`),
 * examples, and direct subcommands. A group has no flags and no examples.
 */
export function commandHelp(node: CommandNode<unknown>): CommandHelp {
  const definition = node.definition;
  return {
    ...summarize(node),
    flags: (definition?.flags ?? []).map((flag) => ({
      name: `--${flag.name}`,
      type: flag.type,
      default: flagDefault(flag),
      description: flag.description,
    })),
    examples: [...(definition?.examples ?? [])],
    subcommands: node.children.map(summarize),
  };
}

/** `{"commands": [...]}` for the given nodes. */
export function commandListing(nodes: readonly CommandNode<unknown>[]): CommandListing {
  return { commands: nodes.map(summarize) };
}

/** The value a command sees when the flag is absent (see `parseArgs`). */
function flagDefault(flag: FlagSpec): FlagHelp['default'] {
  if (flag.type === 'boolean') return false;
  if (flag.type === 'string[]') return Array.isArray(flag.default) ? [...flag.default] : [];
  return typeof flag.default === 'string' ? flag.default : null;
}
