// The answers of `help` and of every `--help` (SPEC §2, §3), and their readable text.
import { view } from './view.js';
import { displayWidth, padToWidth, wrapWords } from './width.js';

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
 * `--json` (the `help` command's and every `--help` answer's text form). With `width` (the
 * terminal's columns) every line fits it, broken at spaces (see {@link columns}).
 */
export function renderHelpText(data: CommandListing | CommandHelp, width?: number): string {
  if ('commands' in data) return columns(data.commands.map(usageAndDescription), '', width);
  const sections = [`usage: ${data.usage}`, data.description];
  if (data.flags.length > 0) {
    const rows = data.flags.map((f): [string, string] => [
      f.name,
      f.description + defaultNote(f.default),
    ]);
    sections.push('flags:\n' + columns(rows, '  ', width));
  }
  if (data.subcommands.length > 0) {
    sections.push(
      'subcommands:\n' + columns(data.subcommands.map(usageAndDescription), '  ', width),
    );
  }
  if (data.examples.length > 0) {
    sections.push('examples:\n' + data.examples.map((e) => `  ${e}\n`).join(''));
  }
  const fitted = width === undefined ? sections : sections.map((s) => wrapLines(s, width));
  return fitted.map((s) => (s.endsWith('\n') ? s : s + '\n')).join('\n');
}

function usageAndDescription(c: CommandSummary): [string, string] {
  return [c.usage, c.description];
}

function defaultNote(value: FlagHelp['default']): string {
  if (value === null || value === false) return '';
  if (Array.isArray(value)) return value.length === 0 ? '' : ` (default: ${value.join(', ')})`;
  return ` (default: ${String(value)})`;
}

/** Widest left column, as a share of the width, before descriptions move below it. */
const LEFT_SHARE = 0.45;
/** Where a description starts when it moves below its (too wide) left cell. */
const BELOW_INDENT = '      ';

/**
 * Two left-aligned columns, each line ending in a newline. With `width`, descriptions wrap at
 * spaces with a hanging indent; a left cell wider than {@link LEFT_SHARE} of the width (a long
 * usage line) stands on its own lines and its description follows below, indented.
 */
function columns(rows: [string, string][], indent = '', width?: number): string {
  const fits = (left: string) =>
    width === undefined || displayWidth(left) <= (width - indent.length) * LEFT_SHARE;
  const left = Math.max(0, ...rows.filter(([l]) => fits(l)).map(([l]) => displayWidth(l)));
  return rows
    .map(([l, right]) => {
      if (fits(l)) {
        const lead = `${indent}${padToWidth(l, left)}  `;
        return hanging(lead, right, ' '.repeat(displayWidth(lead)), width);
      }
      const below = `${indent}${BELOW_INDENT}`;
      return hanging(indent, l, `${indent}    `, width) + hanging(below, right, below, width);
    })
    .join('');
}

/**
 * `lead` then `text`, one line ending in a newline; with `width`, `text` wraps at spaces and
 * its further lines start with `hang`.
 */
function hanging(lead: string, text: string, hang: string, width: number | undefined): string {
  if (width === undefined) return `${lead}${text}\n`;
  const [first = '', ...rest] = wrapWords(text, width - displayWidth(lead));
  const more = rest.length === 0 ? [] : wrapWords(rest.join(' '), width - displayWidth(hang));
  return [`${lead}${first}`, ...more.map((line) => `${hang}${line}`)]
    .map((line) => `${line.trimEnd()}\n`)
    .join('');
}

/** Each line of `text` fitted to `width` (the usage, description and examples sections). */
function wrapLines(text: string, width: number): string {
  return text
    .split('\n')
    .map((line) => {
      if (displayWidth(line) <= width) return line;
      const lead = line.match(/^ */)![0];
      return hanging(lead, line.slice(lead.length), `${lead}  `, width).slice(0, -1);
    })
    .join('\n');
}

/** The answer of `help` and of every `--help`. */
export const helpView = view<CommandListing | CommandHelp>((data, _flags, width) =>
  renderHelpText(data, width),
);
