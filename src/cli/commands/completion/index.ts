// `exectl completion bash|zsh|fish` (SPEC §8): print a shell completion script. The scripts
// hold no list of their own: on each TAB they call `exectl __complete WORDS...`, answered by
// runComplete from the commander tree and the server, so every shell offers the same.
import { Argument, type Command } from 'commander';
import { ExectlError } from '../../../errors.js';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { completionAnswer, formatAnswer } from './answer.js';
import { completionModel } from './model.js';
import { serverSources } from './server.js';
import { zshScript } from './zsh.js';
import type { CliCommand, CommandOutcome } from '../../command.js';
import type { CliContext, CliProcess } from '../../context.js';

const SCRIPTS: Readonly<Record<string, (program: string) => string>> = {
  bash: bashScript,
  zsh: zshScript,
  fish: fishScript,
};

/** Writes the completion script for `shell`, for the program named `program`. */
function runCompletion(ctx: CliContext, program: string, shell: string): CommandOutcome {
  const script = Object.hasOwn(SCRIPTS, shell) ? SCRIPTS[shell] : undefined;
  if (script === undefined) {
    throw new ExectlError('usage', `no completion for shell "${shell}"`, {
      hint: 'choose bash, zsh or fish',
    });
  }
  ctx.stdout.write(script(program));
  return undefined;
}

/**
 * `exectl __complete WORDS...` (hidden; what the scripts call): prints what may be typed at
 * the last of `words`, in the format of formatAnswer. It never fails and never writes to
 * stderr: completion that cannot know says nothing.
 */
export async function runComplete(
  program: Command,
  words: readonly string[],
  proc: CliProcess,
): Promise<CommandOutcome> {
  try {
    const answer = await completionAnswer(completionModel(program), words, (globals) =>
      serverSources(proc.env, globals),
    );
    proc.stdout.write(formatAnswer(answer));
  } catch (err) {
    // A bug here must not print under the user's prompt, unless asked to.
    if (proc.env.EXECTL_DEBUG === '1')
      proc.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  }
  return undefined;
}

/** The name of the program the subcommand was declared on (`exectl`). */
let programName = 'exectl';

export const command: CliCommand = {
  declare(cmd: Command) {
    programName = cmd.parent?.name() ?? programName;
    cmd
      .description('print a shell completion script for exectl')
      .addArgument(new Argument('<shell>', 'the shell').choices(Object.keys(SCRIPTS)))
      .addHelpText(
        'after',
        `
The script asks exectl itself on each TAB (exectl __complete WORDS...): its
commands and flags, flag values with a fixed set (serve --runtime), the server's
commands and their flags after "run" (from its "help all"), and VM names after
"ssh" (from its "ls"). Server answers are cached for 60 s in
$XDG_CACHE_HOME/exectl (else ~/.cache/exectl), one file per server; when the
server is down or no token can be made, completion offers nothing, at once.

Examples:
  source <(exectl completion bash)        # now; or save it as
      ~/.local/share/bash-completion/completions/exectl
  exectl completion zsh > "\${fpath[1]}/_exectl"
  exectl completion fish > ~/.config/fish/completions/exectl.fish`,
      );
  },
  run: async (ctx, operands) => runCompletion(ctx, programName, operands[0] as string),
};
