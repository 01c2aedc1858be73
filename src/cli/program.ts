// The commander tree: global flags, and the subcommands, each imported only when it runs so
// that start-up loads only what the command needs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError, type Option } from 'commander';
import { ExectlError } from '../errors.js';
import { exitCodesHelp } from './exit-codes-help.js';
import type { CliCommand, CommandOutcome } from './command.js';
import { createContext, type CliProcess, type GlobalFlags } from './context.js';
import { suggestionsFor } from '../did-you-mean.js';
import { oneLine } from './output.js';

/**
 * Every subcommand. Adding one: write `commands/<name>/index.ts` exporting `command: CliCommand`,
 * then add its line here.
 */
const COMMANDS: Readonly<Record<string, () => Promise<{ command: CliCommand }>>> = {
  mint: () => import('./commands/mint/index.js'),
  inspect: () => import('./commands/inspect/index.js'),
  run: () => import('./commands/run/index.js'),
  ssh: () => import('./commands/ssh/index.js'),
  'ssh-config': () => import('./commands/ssh-config/index.js'),
  reflect: () => import('./commands/reflect/index.js'),
  auth: () => import('./commands/auth/index.js'),
  completion: () => import('./commands/completion/index.js'),
  serve: () => import('./commands/serve/index.js'),
  profile: () => import('./commands/profile/index.js'),
};

/** The end of `exectl --help`: made when help is shown, not at every start. */
const globalHelp = (): string => `
Environment:
  EXECTL_URL, EXECTL_PROFILE, EXECTL_TOKEN, EXECTL_KEY, EXECTL_NAMESPACE,
  EXECTL_PASSPHRASE, NO_COLOR, EXECTL_DEBUG=1 (stack traces); profiles live in
  $XDG_CONFIG_HOME/exectl/config.json (see exectl(1))

Exit codes (run, ssh; inspect uses 0 valid, 1 invalid, 2 malformed):
${exitCodesHelp("0 success (ssh: the VM command's exit code)")}`;

/** Parses `argv`, runs the command it names and returns its outcome. Throws ExectlErrors. */
export async function runProgram(
  argv: readonly string[],
  proc: CliProcess,
): Promise<CommandOutcome> {
  if (argv[0] === COMPLETE) {
    // The completion scripts' call: answered from the whole tree, never parsed by commander
    // (the words are a command line being typed, not this one), and never shown in help.
    const { runComplete } = await import('./commands/completion/index.js');
    return runComplete(await wholeProgram(proc), argv.slice(1), proc);
  }
  const program = createProgram(proc);
  const at = commandIndexIn(program, argv);
  const named = at === undefined ? undefined : argv[at];
  // Help, suggestions for a mistyped name and a missing command need the whole tree;
  // `exectl --version` needs none of it.
  const toLoad =
    named === undefined && argv[0] === '--version'
      ? []
      : named !== undefined && Object.hasOwn(COMMANDS, named)
        ? [named]
        : Object.keys(COMMANDS);
  let outcome: CommandOutcome;
  let words = argv;
  for (const name of toLoad) {
    const { command } = await COMMANDS[name]!();
    const sub = program.command(name);
    command.declare(sub, (self) => createContext(proc, self.optsWithGlobals<GlobalFlags>()));
    sub.action(async () => {
      const ctx = createContext(proc, program.opts<GlobalFlags>());
      outcome = await command.run(ctx, sub.processedArgs, sub.opts());
    });
    if (command.optionsEndAtFirstOperand === true && name === named) {
      words = endOptionsAtFirstOperand(argv, at!, [...sub.options, ...program.options]);
    }
  }
  try {
    await program.parseAsync([...words], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return commanderOutcome(err, named, program, words);
    throw err;
  }
  return outcome;
}

/** The hidden subcommand the completion scripts call: `exectl __complete WORDS...`. */
const COMPLETE = '__complete';

/** The program with every subcommand declared, and no actions: a description, not a run. */
export async function wholeProgram(proc: CliProcess): Promise<Command> {
  const program = createProgram(proc);
  for (const name of Object.keys(COMMANDS)) {
    const { command } = await COMMANDS[name]!();
    command.declare(program.command(name), (self) =>
      createContext(proc, self.optsWithGlobals<GlobalFlags>()),
    );
  }
  return program;
}

function createProgram(proc: CliProcess): Command {
  return (
    new Command('exectl')
      .description(
        'Mint SSH-signed bearer tokens, run commands on an exectl service, or serve one locally.',
      )
      .version(packageVersion(), '--version', 'print the version and exit')
      .option('--url <url>', 'service URL (env EXECTL_URL; default http://127.0.0.1:7070)')
      .option('--profile <name>', 'profile from the config file (env EXECTL_PROFILE)')
      .option('--no-color', 'never colour the output (also NO_COLOR)')
      .option('-q, --quiet', 'no warnings: only results and errors')
      .addHelpText('after', globalHelp)
      // Suggestions come from did-you-mean.ts, the same as the server's (see commanderOutcome).
      .showSuggestionAfterError(false)
      .exitOverride()
      .configureOutput({
        writeOut: (text) => proc.stdout.write(text),
        writeErr: (text) => proc.stderr.write(text),
        // main.ts prints every error as one line; commander's own rendering is dropped.
        outputError: () => {},
      })
  );
}

/**
 * Where the subcommand `argv` names is: its first word that is neither an option nor a global
 * option's value. Found before commander parses, so that only this command's module is loaded.
 */
function commandIndexIn(program: Command, argv: readonly string[]): number | undefined {
  const at = firstOperand(argv, 0, program.options);
  return at === undefined || argv[at] === '--' ? undefined : at;
}

/**
 * The index of the first word from `from` on that is not an option of `options` nor an
 * option's value (or of a `--`); undefined when there is none.
 */
function firstOperand(
  argv: readonly string[],
  from: number,
  options: readonly Option[],
): number | undefined {
  for (let i = from; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--' || arg === '-' || !arg.startsWith('-')) return i;
    if (arg.includes('=')) continue; // --url=x carries its value
    const option = options.find((o) => o.long === arg || o.short === arg);
    if (option !== undefined && !option.isBoolean()) i++;
  }
  return undefined;
}

/**
 * `argv` with a `--` after the first operand that follows the subcommand at `at` (`exectl ssh
 * -q web grep -q x` → `... web -- grep -q x`), so that every later word is the command's, as
 * ssh, `docker exec` and `kubectl exec` read them. A `--` the user wrote there is kept as the
 * one.
 */
function endOptionsAtFirstOperand(
  argv: readonly string[],
  at: number,
  options: readonly Option[],
): readonly string[] {
  const first = firstOperand(argv, at + 1, options);
  if (first === undefined || argv[first] === '--') return argv;
  const rest = argv.slice(first + 1);
  return [...argv.slice(0, first + 1), '--', ...(rest[0] === '--' ? rest.slice(1) : rest)];
}

/** Commander's help, version and parse errors as an outcome or a usage error. */
function commanderOutcome(
  err: CommanderError,
  named: string | undefined,
  program: Command,
  argv: readonly string[],
): CommandOutcome {
  if (err.exitCode === 0) return undefined; // --help, --version, `help`
  // No command given: commander has already shown the help on stderr.
  if (err.code === 'commander.help') return new ExectlError('usage', 'no command given');
  // A group with an action of its own (`auth`, `serve`) reports a mistyped subcommand as an
  // excess argument.
  const unknown =
    err.code === 'commander.unknownCommand' || err.code === 'commander.excessArguments'
      ? unknownCommand(program, argv)
      : undefined;
  if (unknown !== undefined) throw unknown;
  const command =
    named !== undefined && Object.hasOwn(COMMANDS, named) ? `exectl ${named}` : 'exectl';
  throw new ExectlError('usage', oneLine(err.message.replace(/^error: /, '')), {
    hint: `see "${command} --help"`,
  });
}

/**
 * `exectl rn` or `exectl auth stauts`: the first word of `argv` that names no (sub)command, with
 * the nearest names (did-you-mean.ts) as the hint, else where the commands are listed;
 * undefined when the command that word follows has no subcommands (an excess argument).
 */
function unknownCommand(program: Command, argv: readonly string[]): ExectlError | undefined {
  let parent = program;
  let from = 0;
  for (;;) {
    const at = firstOperand(argv, from, [...parent.options, ...program.options]);
    const word = at === undefined ? undefined : argv[at];
    const child = parent.commands.find((c) => c.name() === word);
    if (at === undefined || word === undefined || child === undefined) {
      if (parent.commands.length === 0) return undefined;
      const path = commandPath(parent);
      const typed = word ?? '';
      const near = suggestionsFor(
        typed,
        parent.commands.map((c) => c.name()),
      ).map((name) => `"${path} ${name}"`);
      const shown = [...path.split(' ').slice(1), typed].join(' ');
      return new ExectlError('usage', `unknown command: ${shown}`, {
        hint: near.length > 0 ? `did you mean ${near.join(' or ')}?` : `see "${path} --help"`,
      });
    }
    parent = child;
    from = at + 1;
  }
}

/** `exectl serve accounts` for that command: its name and its parents'. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

function packageVersion(): string {
  // dist/bundle/, dist/cli/ and src/cli/ all sit two levels below the package root. A path,
  // not a URL: the first URL a process builds costs a millisecond of every start.
  const path = join(import.meta.dirname, '..', '..', 'package.json');
  const pkg = JSON.parse(readFileSync(path, 'utf8')) as { version: string };
  return pkg.version;
}
