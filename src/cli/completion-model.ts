// What shell completion needs to know about exectl, read from the commander tree itself so it
// stays true as commands and flags are added.
import type { Command, Option } from 'commander';

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
}

export interface CompletionCommand {
  name: string;
  description: string;
  flags: CompletionFlag[];
  /** The allowed values of the first argument, when commander knows them (`bash|zsh|fish`). */
  choices: string[];
}

export interface CompletionModel {
  program: string;
  globalFlags: CompletionFlag[];
  commands: CompletionCommand[];
}

/** Flag value placeholders that name a file; the shells then complete paths. */
const FILE_VALUE = /<(path|file|pubkey[^>]*|dir)>/i;

/** The model of `program` and its subcommands, sorted by name. */
export function completionModel(program: Command): CompletionModel {
  return {
    program: program.name(),
    globalFlags: flagsOf(program),
    commands: program.commands
      .map((cmd) => ({
        name: cmd.name(),
        description: cmd.description(),
        flags: flagsOf(cmd),
        choices: [...(cmd.registeredArguments[0]?.argChoices ?? [])],
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}

function flagsOf(cmd: Command): CompletionFlag[] {
  const flags = cmd.options.filter((o) => !o.hidden).map(flagOf);
  // commander adds --help (and --version on the program) itself.
  flags.push({
    long: '--help',
    short: '-h',
    description: 'show help',
    takesValue: false,
    fileValue: false,
  });
  return flags;
}

function flagOf(option: Option): CompletionFlag {
  return {
    long: option.long,
    short: option.short,
    description: option.description,
    takesValue: option.required || option.optional,
    fileValue: FILE_VALUE.test(option.flags),
  };
}
