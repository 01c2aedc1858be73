// The commander tree: global flags, and the subcommands, each imported only when it runs so
// that start-up loads only what the command needs.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ExectlError } from '../errors.js';
import type { CliCommand, CommandOutcome } from './command.js';
import { createContext, type CliProcess, type GlobalFlags } from './context.js';
import { oneLine } from './output.js';

/**
 * Every subcommand. Adding one: write `commands/<name>.ts` exporting `command: CliCommand`,
 * then add its line here.
 */
const COMMANDS: Readonly<Record<string, () => Promise<{ command: CliCommand }>>> = {
  mint: () => import('./commands/mint.js'),
  inspect: () => import('./commands/inspect.js'),
  run: () => import('./commands/run.js'),
  ssh: () => import('./commands/ssh.js'),
  reflect: () => import('./commands/reflect.js'),
  completion: () => import('./commands/completion.js'),
  serve: () => import('./commands/serve.js'),
};

const GLOBAL_HELP = `
Environment:
  EXECTL_URL, EXECTL_PROFILE, EXECTL_TOKEN, EXECTL_KEY, EXECTL_NAMESPACE,
  EXECTL_PASSPHRASE, NO_COLOR, EXECTL_DEBUG=1 (stack traces); profiles live in
  $XDG_CONFIG_HOME/exectl/config.json (see exectl(1))

Exit codes (run, ssh; inspect uses 0 valid, 1 invalid, 2 malformed):
  0 success (ssh: the VM command's exit code), 1 command failed (422),
  2 usage or bad request (400), 3 authentication (401), 4 not allowed (403),
  5 unknown command (404), 6 rate limited (429), 7 timed out (504),
  8 server unreachable, 9 server error (5xx)`;

/** Parses `argv`, runs the command it names and returns its outcome. Throws ExectlErrors. */
export async function runProgram(
  argv: readonly string[],
  proc: CliProcess,
): Promise<CommandOutcome> {
  const program = createProgram(proc);
  const named = commandNameIn(program, argv);
  // Help, suggestions for a mistyped name, a missing command, and `completion` (which
  // describes every command) need the whole tree; `exectl --version` needs none of it.
  const toLoad =
    named === undefined && argv[0] === '--version'
      ? []
      : named !== undefined && named !== 'completion' && Object.hasOwn(COMMANDS, named)
        ? [named]
        : Object.keys(COMMANDS);
  let outcome: CommandOutcome;
  for (const name of toLoad) {
    const { command } = await COMMANDS[name]!();
    const sub = program.command(name);
    command.declare(sub, (self) => createContext(proc, self.optsWithGlobals<GlobalFlags>()));
    sub.action(async () => {
      const ctx = createContext(proc, program.opts<GlobalFlags>());
      outcome = await command.run(ctx, sub.processedArgs, sub.opts());
    });
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return commanderOutcome(err, named);
    throw err;
  }
  return outcome;
}

function createProgram(proc: CliProcess): Command {
  return new Command('exectl')
    .description(
      'Mint SSH-signed bearer tokens, run commands on an exectl service, or serve one locally.',
    )
    .version(packageVersion(), '--version', 'print the version and exit')
    .option('--url <url>', 'service URL (env EXECTL_URL; default http://127.0.0.1:7070)')
    .option('--profile <name>', 'profile from the config file (env EXECTL_PROFILE)')
    .option('--no-color', 'never colour the output (also NO_COLOR)')
    .option('-q, --quiet', 'no warnings: only results and errors')
    .addHelpText('after', GLOBAL_HELP)
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => proc.stdout.write(text),
      writeErr: (text) => proc.stderr.write(text),
      // main.ts prints every error as one line; commander's own rendering is dropped.
      outputError: () => {},
    });
}

/**
 * The subcommand `argv` names: its first word that is neither an option nor a global option's
 * value. Found before commander parses, so that only this command's module is loaded.
 */
function commandNameIn(program: Command, argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return undefined;
    if (arg === '-' || !arg.startsWith('-')) return arg;
    const option = program.options.find((o) => o.long === arg || o.short === arg);
    if (option !== undefined && !option.isBoolean()) i++;
  }
  return undefined;
}

/** Commander's help, version and parse errors as an outcome or a usage error. */
function commanderOutcome(err: CommanderError, named: string | undefined): CommandOutcome {
  if (err.exitCode === 0) return undefined; // --help, --version, `help`
  // No command given: commander has already shown the help on stderr.
  if (err.code === 'commander.help') return new ExectlError('usage', 'no command given');
  const command =
    named !== undefined && Object.hasOwn(COMMANDS, named) ? `exectl ${named}` : 'exectl';
  throw new ExectlError('usage', oneLine(err.message.replace(/^error: /, '')), {
    hint: `see "${command} --help"`,
  });
}

function packageVersion(): string {
  // dist/bundle/, dist/cli/ and src/cli/ all sit two levels below the package root.
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
