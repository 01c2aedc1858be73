// `exectl ssh VM [--] ARGV...` (SPEC §8): run ARGV in a VM through /exec, stream its output,
// and exit with its exit code.
import type { Command } from 'commander';
import { ExectlError } from '../../../errors.js';
import type { CliCommand, CommandOutcome } from '../../command.js';
import type { CliContext } from '../../context.js';
import { execExitCode, isVmOutput, responseError, streamCutOff } from '../../exec/answer.js';
import { streamSink } from '../../output-sink.js';
import { sendSigned } from '../../exec/send-signed.js';
import { remoteCommandLine, type PreparedLine } from '../../../command-line.js';

export interface SshOptions {
  token?: string;
  key?: string;
}

/** SPEC §3: a VM name is a DNS label. */
const VM_NAME = /^[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/**
 * The VM command's exit status as the outcome of `exectl ssh`: already "shown" (its output is
 * on stdout), so main.ts prints nothing and exits with that code rather than a catalogue
 * code.
 */
class RemoteExit extends ExectlError {
  readonly remoteExitCode: number;

  constructor(remoteExitCode: number) {
    super('command_failed', `the command exited with ${remoteExitCode}`);
    this.name = 'RemoteExit';
    this.remoteExitCode = remoteExitCode;
  }

  override get exitCode(): number {
    return this.remoteExitCode;
  }
}

/** Runs `argv` in VM `vm`: its output goes to stdout as it arrives; resolves with its exit. */
async function runSsh(
  ctx: CliContext,
  vm: string,
  argv: readonly string[],
  options: SshOptions,
): Promise<CommandOutcome> {
  if (!VM_NAME.test(vm)) {
    throw new ExectlError('usage', `"${vm}" is not a valid VM name`, {
      hint: 'a VM name is lowercase letters, digits and "-", starting with a letter',
    });
  }
  const scope = `ssh ${vm}`;
  const prepared: PreparedLine = {
    line: remoteCommandLine(vm, argv),
    scope,
    path: 'ssh',
    repeatable: false,
  };
  const settings = ctx.settings({ key: options.key });
  const { response, signedBy } = await sendSigned(ctx, settings, {
    flag: options.token,
    scope,
    request: { prepared, onChunk: streamSink(ctx.stdout) },
  });
  const cutOff = streamCutOff(response);
  if (cutOff !== undefined) throw cutOff;
  const exit = isVmOutput(response) ? execExitCode(response) : undefined;
  if (exit === undefined) throw responseError(response, { url: settings.url, scope, signedBy });
  return exit === 0 ? undefined : new RemoteExit(exit);
}

export const command: CliCommand = {
  declare(cmd: Command) {
    cmd
      .description('run a program in a VM and exit with its exit code')
      .argument('<vm>', 'the VM')
      .argument('<argv...>', 'the program and its arguments, passed as they are')
      .option('--token <token>', 'bearer token (env EXECTL_TOKEN; else minted for "ssh <vm>")')
      .option('--key <path>', 'private key for the minted token (env EXECTL_KEY)')
      .addHelpText(
        'after',
        `
exectl's own flags come before VM; every word after VM is the program's, flags
included (exectl ssh web grep -q root /etc/passwd runs grep with -q), as with
ssh and docker exec. Each word of ARGV reaches the program exactly as given:
spaces, quotes, $, * and newlines are quoted for the VM's shell. For a pipeline,
run a shell: exectl ssh web sh -c 'ls | wc -l'.

Output (stdout and stderr interleaved) streams as it comes. The exit code is the
program's; otherwise as exectl run: 3 authentication, 4 not allowed,
7 timed out, 8 server unreachable, 9 server error.

Examples:
  exectl ssh web uname -a
  exectl ssh web ls -la /tmp
  exectl ssh --key ~/.ssh/ci web sh -c 'cd app && npm test'`,
      );
  },
  optionsEndAtFirstOperand: true,
  run: (ctx, operands, options) =>
    runSsh(ctx, operands[0] as string, operands[1] as string[], options as SshOptions),
};
