// The answers of `help` and of every `--help` (SPEC §2, §3), and their readable text.

/** One line of a `help` listing, and one entry of a help's `subcommands`. */
export interface CommandSummary {
  name: string;
  usage: string;
  description: string;
}

/** One flag in a command's help. `name` is what is typed (`--tag`); no default is `null`. */
export interface FlagHelp {
  name: string;
  type: 'boolean' | 'string' | 'string[]';
  default: string | boolean | string[] | null;
  description: string;
}

/** The answer to `<path> --help` and `help <path>` (SPEC §2), keys in this order. */
export interface CommandHelp {
  name: string;
  usage: string;
  description: string;
  flags: FlagHelp[];
  examples: string[];
  subcommands: CommandSummary[];
}

/** The answer to `help` and `help all` (SPEC §3). */
export interface CommandListing {
  commands: CommandSummary[];
}

/**
 * Readable text of a {@link CommandListing} or a {@link CommandHelp}, for SSH sessions without
 * `--json` (the `help` command's and every `--help` answer's text form).
 */
export function renderHelpText(data: CommandListing | CommandHelp): string {
  if ('commands' in data) return columns(data.commands.map(usageAndDescription));
  const sections = [`usage: ${data.usage}`, data.description];
  if (data.flags.length > 0) {
    const rows = data.flags.map((f): [string, string] => [
      f.name,
      f.description + defaultNote(f.default),
    ]);
    sections.push('flags:\n' + columns(rows, '  '));
  }
  if (data.subcommands.length > 0) {
    sections.push('subcommands:\n' + columns(data.subcommands.map(usageAndDescription), '  '));
  }
  if (data.examples.length > 0) {
    sections.push('examples:\n' + data.examples.map((e) => `  ${e}\n`).join(''));
  }
  return sections.map((s) => (s.endsWith('\n') ? s : s + '\n')).join('\n');
}

function usageAndDescription(c: CommandSummary): [string, string] {
  return [c.usage, c.description];
}

function defaultNote(value: FlagHelp['default']): string {
  if (value === null || value === false) return '';
  if (Array.isArray(value)) return value.length === 0 ? '' : ` (default: ${value.join(', ')})`;
  return ` (default: ${String(value)})`;
}

/** Two left-aligned columns, each line ending in a newline. */
function columns(rows: [string, string][], indent = ''): string {
  const width = Math.max(0, ...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `${indent}${left.padEnd(width)}  ${right}\n`).join('');
}
