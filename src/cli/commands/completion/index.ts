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

/** Writes the completion script for `shell`, describing `program` and its subcommands. */
export function runCompletion(ctx: CliContext, program: Command, shell: string): CommandOutcome {
  const script = Object.hasOwn(SCRIPTS, shell) ? SCRIPTS[shell] : undefined;
  if (script === undefined) {
    throw new ExectlError('usage', `no completion for shell "${shell}"`, {
      hint: 'choose bash, zsh or fish',
    });
  }
  ctx.stdout.write(script(program.name()));
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
  } catch {
    // A bug here must not print a stack trace under the user's prompt.
  }
  return undefined;
}

/** The program the subcommand was declared on (program.ts declares every command for it). */
let program: Command | undefined;

export const command: CliCommand = {
  declare(cmd: Command) {
    program = cmd.parent ?? undefined;
    cmd
      .description('print a shell completion script for exectl')
      .addArgument(new Argument('<shell>', 'the shell').choices(Object.keys(SCRIPTS)))
      .addHelpText(
        'after',
        `
Examples:
  source <(exectl completion bash)        # now; or save it as
      ~/.local/share/bash-completion/completions/exectl
  exectl completion zsh > "\${fpath[1]}/_exectl"
  exectl completion fish > ~/.config/fish/completions/exectl.fish`,
      );
  },
  run: async (ctx, operands) => {
    if (program === undefined) throw new Error('completion: declared without a program');
    return runCompletion(ctx, program, operands[0] as string);
  },
};
