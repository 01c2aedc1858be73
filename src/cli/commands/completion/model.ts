// What shell completion needs to know about exectl, read from the commander tree itself so it
// stays true as commands, subcommands and flags are added.
import type { Command, Option } from 'commander';
import { valuesOf } from '../../completion-values.js';

export interface CompletionFlag {
  /** `--exp`; undefined for a short-only flag. */
  long: string | undefined;
  /** `-q`; undefined when the flag has no short form. */
  short: string | undefined;
  description: string;
  /** The flag is followed by a value. */
  takesValue: boolean;
  /** The value is a file path (`--key <path>`, `--verify <file>`). */
  fileValue: boolean;
  /** The value is one of these (`serve --runtime auto|bwrap|process`). */
  values?: readonly string[];
}

export interface CompletionCommand {
  /** Its words after the program, e.g. `['serve', 'accounts', 'add']`; `[]` for the program. */
  path: string[];
  description: string;
  /** Its own flags, then the global ones (commander accepts those after any command too). */
  flags: CompletionFlag[];
  subcommands: { name: string; description: string }[];
  /** The allowed values of its first argument, when commander knows them (`bash|zsh|fish`). */
  choices: string[];
  /** It takes arguments of its own (operands that are not subcommands). */
  takesArgs: boolean;
}

export interface CompletionModel {
  program: string;
  /** The program first, then every subcommand at every depth, parents before children. */
  commands: CompletionCommand[];
  /** Every flag name that takes a value, split by whether the value is a file. */
  valueFlags: { files: string[]; other: string[] };
}

/** Flag value placeholders that name a file or folder; the shells then complete paths. */
const FILE_VALUE = /<(path|file|dir|pubkey[^>]*)>/i;

/** commander adds --help to every command itself; it is not among `options`. */
const HELP: CompletionFlag = {
  long: '--help',
  short: '-h',
  description: 'show help',
  takesValue: false,
  fileValue: false,
};

/**
 * commander's implicit `exectl help [command]`: not among `program.commands`, but typed like
 * any other command.
 */
const HELP_COMMAND = { name: 'help', description: 'show the help of a command' };

/**
 * The model of `program` and all its subcommands, each level sorted by name; the program's own
 * level also offers `help`, whose argument is a top-level command.
 */
export function completionModel(program: Command): CompletionModel {
  const globals = program.options.filter((o) => !o.hidden).map(flagOf);
  const commands: CompletionCommand[] = [];
  const visit = (cmd: Command, path: string[]) => {
    const subs = [...cmd.commands].sort((a, b) => a.name().localeCompare(b.name()));
    const own = cmd.options.filter((o) => !o.hidden).map(flagOf);
    const named = subs.map((s) => ({ name: s.name(), description: s.description() }));
    commands.push({
      path,
      description: cmd.description(),
      flags: path.length === 0 ? [...own, HELP] : [...own, HELP, ...globals],
      subcommands: path.length === 0 ? [...named, HELP_COMMAND] : named,
      choices: [...(cmd.registeredArguments[0]?.argChoices ?? [])],
      takesArgs: cmd.registeredArguments.length > 0,
    });
    for (const sub of subs) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  commands.push({
    path: [HELP_COMMAND.name],
    description: HELP_COMMAND.description,
    flags: [HELP, ...globals],
    subcommands: [],
    choices: [...program.commands].map((c) => c.name()).sort(),
    takesArgs: true,
  });
  const valued = commands.flatMap((c) => c.flags).filter((f) => f.takesValue);
  return {
    program: program.name(),
    commands,
    valueFlags: {
      files: flagNames(valued.filter((f) => f.fileValue)),
      other: flagNames(valued.filter((f) => !f.fileValue)),
    },
  };
}

/** The names of `flags` (long and short), each once, in order. */
function flagNames(flags: readonly CompletionFlag[]): string[] {
  const names = flags.flatMap((f) => [f.long, f.short]);
  return [...new Set(names.filter((n): n is string => n !== undefined))];
}

function flagOf(option: Option): CompletionFlag {
  const values = valuesOf(option);
  return {
    long: option.long,
    short: option.short,
    description: option.description,
    takesValue: option.required || option.optional,
    fileValue: FILE_VALUE.test(option.flags),
    ...(values === undefined ? {} : { values }),
  };
}
