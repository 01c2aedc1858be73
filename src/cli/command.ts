import type { Command } from 'commander';
import type { ExectlError } from '../errors.js';
import type { CliContext } from './context.js';

/**
 * What a command returns. `undefined`: success. An ExectlError: the command has already shown
 * its result (e.g. `inspect` printed a report on an expired token) and the process must exit
 * with that error's code; main.ts maps it without printing it again. A failure that has not
 * been shown is thrown instead.
 */
export type CommandOutcome = ExectlError | undefined;

/**
 * One subcommand. Each lives in `src/cli/commands/<name>/index.ts`, which exports `command` of this
 * type, and is listed once in program.ts's COMMANDS, which imports it only when it runs.
 */
export interface CliCommand {
  /**
   * Declares the subcommand's description, arguments, flags and extra help on `cmd`. A command
   * with nested subcommands of its own (`serve accounts add`) builds their contexts with
   * `contextFor`, from the flags of every level, as program.ts does for top-level commands.
   */
  declare(cmd: Command, contextFor: (self: Command) => CliContext): void;
  /**
   * True when every word after the command's first operand is an operand too (`exectl ssh VM
   * ARGV`: the program's flags are the program's). Its own flags come before that operand.
   */
  readonly optionsEndAtFirstOperand?: boolean;
  /**
   * Runs it with commander's parsed positional arguments and options. Commands convert the
   * options to their own typed shape and delegate to a plain function tests can call directly.
   */
  run(
    ctx: CliContext,
    operands: readonly unknown[],
    options: Record<string, unknown>,
  ): Promise<CommandOutcome>;
}
