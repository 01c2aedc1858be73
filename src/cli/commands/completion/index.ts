// `exectl completion bash|zsh|fish` (SPEC §8): print a shell completion script generated from
// the commander tree, so it lists exactly the commands and flags this exectl has.
import { Argument, type Command } from 'commander';
import { ExectlError } from '../../../errors.js';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { completionModel, type CompletionModel } from './model.js';
import { zshScript } from './zsh.js';
import type { CliCommand, CommandOutcome } from '../../command.js';
import type { CliContext } from '../../context.js';

const SCRIPTS: Readonly<Record<string, (model: CompletionModel) => string>> = {
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
  ctx.stdout.write(script(completionModel(program)));
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
