import { ExectlError } from '../../errors.js';
import { FlagValues } from './flag-values.js';
import type { CommandDefinition, CommandInput, FlagSpec, FlagValue } from './types.js';

/** The result of reading the words after a command path against its definition. */
interface ParsedArgs {
  /** Flags with defaults applied, and the positional words (best effort when `error` is set). */
  input: CommandInput;
  /** `--help` was given: answer the command's help and run nothing. */
  help: boolean;
  /** `--json` was given (always accepted; HTTP answers JSON anyway, SSH renders text without it). */
  json: boolean;
  /**
   * The first problem found (422 `command_failed`), or undefined. Returned rather than thrown
   * because authorization (403) must be decided first, from the same positional words the
   * command would see — `ssh --json web ls` is `ssh` into `web` — and `--help` wins over it.
   */
  error: ExectlError | undefined;
}

type ArgsShape = Pick<CommandDefinition<unknown>, 'path' | 'flags' | 'args'>;

/**
 * Parses flags and positional arguments of one command.
 *
 * Forms, as the real service's (Go `flag`) parser takes them too: `--name value`,
 * `--name=value`, `-n value`, `-n=value`, a short flag written long (`--l` is `-l`), boolean `--long`/`-l`
 * or `--long=true|false` (also `1`/`0`, `t`/`f`), repeated `string[]` flags; a `string[]`
 * flag declared `commaList` also splits each value at commas (`--tag=a,b` is `--tag a --tag b`;
 * empty parts are dropped). `--` ends flags; a lone `-` is a positional word; any other word
 * starting with `-` is a flag (so `-abc` is an unknown flag: short flags do not bundle). A value
 * may start with a dash (`--comment -x-`), except that `--help` is never taken as a value.
 * `--help` and `--json` are accepted everywhere flags are. Words of a `raw` argument are taken
 * verbatim (see `ArgSpec.raw` in types.ts).
 *
 * Error messages (each one sentence, 422, hint `run "<path> --help" for usage`):
 * `unknown flag "--x"`, `flag --name needs a value`, `flag --long takes true or false, not "x"`,
 * `flag --name given more than once`, `unexpected argument "x"`, `missing argument <vm>`.
 */
export function parseArgs(def: ArgsShape, words: readonly string[]): ParsedArgs {
  const { long, short } = flagTables(def.flags);
  const values = defaultValues(def.flags);
  const given = new Set<string>();
  const positionals: string[] = [];
  const rawIndex = def.args.findIndex((a) => a.raw === true);
  let help = false;
  let json = false;
  let error: ExectlError | undefined;
  const fail = (message: string): void => {
    error ??= new ExectlError('command_failed', message, {
      hint: `run "${def.path} --help" for usage`,
    });
  };

  let flagsEnded = false;
  let rawStarted = false;
  let i = 0;
  while (i < words.length) {
    const word = words[i]!;
    i += 1;
    if (rawIndex >= 0 && positionals.length >= rawIndex) {
      // The remote command of `ssh <vm> -- ls` starts after one optional `--`.
      const droppedSeparator = !rawStarted && word === '--';
      rawStarted = true;
      if (!droppedSeparator) positionals.push(word);
      continue;
    }
    if (!flagsEnded && word === '--') {
      flagsEnded = true;
      continue;
    }
    if (flagsEnded || !word.startsWith('-') || word === '-') {
      positionals.push(word);
      continue;
    }
    const eq = word.indexOf('=');
    const typed = eq < 0 ? word : word.slice(0, eq);
    const inline = eq < 0 ? undefined : word.slice(eq + 1);
    if (typed === '--help' || typed === '--json') {
      if (inline !== undefined) fail(`flag ${typed} does not take a value`);
      else if (typed === '--help') help = true;
      else json = true;
      continue;
    }
    const spec = typed.startsWith('--')
      ? (long.get(typed.slice(2)) ?? short.get(typed.slice(2)))
      : short.get(typed.slice(1));
    if (spec === undefined) {
      fail(`unknown flag ${JSON.stringify(typed)}`);
      continue;
    }
    const flag = `--${spec.name}`;
    if (spec.type === 'boolean') {
      const on = inline === undefined ? true : BOOLEAN_WORDS.get(inline.toLowerCase());
      if (on === undefined) fail(`flag ${flag} takes true or false, not ${JSON.stringify(inline)}`);
      else values.set(spec.name, on);
      continue;
    }
    let value = inline;
    if (value === undefined && words[i] !== undefined && words[i] !== '--help') {
      value = words[i];
      i += 1;
    }
    if (value === undefined) {
      fail(`flag ${flag} needs a value`);
      continue;
    }
    if (spec.type === 'string') {
      if (given.has(spec.name)) fail(`flag ${flag} given more than once`);
      values.set(spec.name, value);
    } else {
      const previous = given.has(spec.name) ? values.get(spec.name) : undefined;
      const added = spec.commaList === true ? commaParts(value) : [value];
      values.set(spec.name, [...(Array.isArray(previous) ? previous : []), ...added]);
    }
    given.add(spec.name);
  }

  const last = def.args.at(-1);
  const maxArgs = last?.variadic === true ? Infinity : def.args.length;
  if (positionals.length > maxArgs) {
    fail(`unexpected argument ${JSON.stringify(positionals[maxArgs])}`);
  }
  const missing = def.args.find((arg, index) => arg.required && positionals.length <= index);
  if (missing !== undefined) fail(`missing argument <${missing.name}>`);

  return {
    input: { flags: new FlagValues(long, values), args: positionals },
    help,
    json,
    error,
  };
}

/** The values a boolean flag may be given with `=`, as Go's strconv.ParseBool reads them. */
const BOOLEAN_WORDS: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['t', true],
  ['1', true],
  ['false', false],
  ['f', false],
  ['0', false],
]);

/** `a, b,,c` → `['a', 'b', 'c']`: a comma list as the real service splits it. */
function commaParts(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

interface FlagTables {
  /** By long name, without the dashes. */
  long: ReadonlyMap<string, FlagSpec>;
  /** By short letter. */
  short: ReadonlyMap<string, FlagSpec>;
}

// Built once per command: every request parses its arguments, and a command's flags never change.
const tablesByFlags = new WeakMap<readonly FlagSpec[], FlagTables>();

function flagTables(flags: readonly FlagSpec[]): FlagTables {
  let tables = tablesByFlags.get(flags);
  if (tables === undefined) {
    tables = {
      long: new Map(flags.map((f) => [f.name, f])),
      short: new Map(flags.flatMap((f) => (f.short === undefined ? [] : [[f.short, f]]))),
    };
    tablesByFlags.set(flags, tables);
  }
  return tables;
}

/** Booleans start false, repeatable flags start empty, strings start at their default if any. */
function defaultValues(flags: readonly FlagSpec[]): Map<string, FlagValue> {
  const values = new Map<string, FlagValue>();
  for (const flag of flags) {
    if (flag.type === 'boolean') values.set(flag.name, false);
    else if (flag.type === 'string[]') {
      values.set(flag.name, Array.isArray(flag.default) ? [...flag.default] : []);
    } else if (typeof flag.default === 'string') values.set(flag.name, flag.default);
  }
  return values;
}
