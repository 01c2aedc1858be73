// `exectl ssh VM [--] WORDS...` (SPEC §8): run WORDS, joined by spaces as OpenSSH's ssh joins
// them, through the VM's shell over /exec; stream its output, and exit with its exit code.
import type { Command } from 'commander';
import { ExectlError } from '../../../errors.js';
import type { CliCommand, CommandOutcome } from '../../command.js';
import type { CliContext } from '../../context.js';
import { execExitCode, isVmOutput, responseError, streamCutOff } from '../../exec/answer.js';
import { streamSink } from '../../output-sink.js';
import { sendSigned } from '../../exec/send-signed.js';
import { shellCommandLine, type PreparedLine } from '../../../command-line.js';
import { stdinHasInput } from './stdin-input.js';
import { runOverSsh } from './over-ssh.js';
import { noCommand, sshDestination, withSessionHint } from './destination.js';
import { configuredCredential } from '../../exec/token.js';
import { firstSigner, signingCandidates } from '../../exec/candidates.js';
import type { Settings } from '../../settings.js';

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

/**
 * Runs the words `argv`, joined by spaces, through VM `vm`'s shell: its output goes to stdout
 * as it arrives; resolves with its exit.
 */
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
  const settings = ctx.settings({ key: options.key });
  if (argv.length === 0) throw await noCommand(ctx, settings, vm);
  const scope = `ssh ${vm}`;
  const prepared: PreparedLine = {
    line: shellCommandLine(vm, argv),
    scope,
    path: 'ssh',
    repeatable: false,
  };
  if (await stdinHasInput(ctx)) {
    const exit = await withStdin(ctx, settings, vm, argv, options);
    return exit === 0 ? undefined : new RemoteExit(exit);
  }
  const { response, signedBy, configuredToken } = await sendSigned(ctx, settings, {
    flag: options.token,
    scope,
    request: { prepared, onChunk: streamSink(ctx.stdout) },
  });
  const cutOff = streamCutOff(response);
  if (cutOff !== undefined) throw await withSessionHint(ctx, settings, vm, cutOff);
  const exit = isVmOutput(response) ? execExitCode(response) : undefined;
  if (exit === undefined) {
    const error = responseError(response, {
      url: settings.url,
      scope,
      signedBy,
      configuredToken,
      namespace: settings.namespace,
    });
    throw await withSessionHint(ctx, settings, vm, error);
  }
  return exit === 0 ? undefined : new RemoteExit(exit);
}

/**
 * Runs the command over the VM's SSH server, which takes stdin (SPEC §6a): its address from
 * `ls` (a token minted for `ls` as for any command), the first signing key for the session.
 * A configured token (`--token`, EXECTL_TOKEN) cannot sign an SSH session, and a server with
 * its SSH listener off has none: both are refused in one line naming the destination.
 */
async function withStdin(
  ctx: CliContext,
  settings: Settings,
  vm: string,
  argv: readonly string[],
  options: SshOptions,
): Promise<number> {
  if (configuredCredential(ctx, settings, options.token) !== undefined) {
    throw stdinRefused(vm, settings.url);
  }
  const dest = await sshDestination(ctx, settings, vm);
  if (dest === undefined) throw stdinRefused(vm, settings.url);
  const signer = await firstSigner(ctx, settings, await signingCandidates(ctx, settings));
  // The words joined for the VM's shell, as the /exec line and OpenSSH's ssh do.
  const command = argv.join(' ');
  try {
    return await runOverSsh(dest, signer, command, ctx);
  } catch (err) {
    throw new ExectlError(
      'unreachable',
      `cannot reach vm "${vm}" over SSH at ${dest.user}@${dest.host}:${dest.port}: ${(err as Error).message}`,
      { hint: "check that the server's SSH listener is reachable from here" },
    );
  }
}

/**
 * The refusal of input on stdin, naming the SSH destination of the VM on the server's host:
 * /exec has no stdin, the VM's SSH server has (SPEC §6a).
 */
function stdinRefused(vm: string, url: string): ExectlError {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return new ExectlError(
    'usage',
    `exectl ssh does not forward stdin: use ssh vm+${vm}@${host} (with -p ssh_port)`,
    { hint: `ssh_dest and ssh_port are in the answer of "ls ${vm}"; stdin at /dev/null runs here` },
  );
}

export const command: CliCommand = {
  declare(cmd: Command) {
    cmd
      .description('run a command line in a VM and exit with its exit code')
      .argument('<vm>', 'the VM')
      .argument('[argv...]', "the command line for the VM's shell (its words joined by spaces)")
      .option('--token <token>', 'bearer token (env EXECTL_TOKEN; else minted for "ssh <vm>")')
      .option('--key <path>', 'private key for the minted token (env EXECTL_KEY)')
      .addHelpText(
        'after',
        `
exectl's own flags come before VM; every word after VM is the command's, flags
included (exectl ssh web grep -q root /etc/passwd runs grep with -q), as with
ssh and docker exec. As with ssh, the words are joined by spaces into one
command line for the VM's shell, so quote what your own shell would expand:
exectl ssh web 'ls / | wc -l', exectl ssh web 'cat > f' < f. For a shell in
the VM, ssh to its ssh_dest (ssh -p 7022 vm+web@localhost): no 30 s limit there.

Input on stdin (a pipe or a file with data) goes over the VM's own SSH server
(vm+VM@host, from ls), signed by the same key, with stdout and stderr apart and
no 30 s limit; with --token or EXECTL_TOKEN, or SSH off on the server, it is
refused naming that destination. /dev/null, a closed stdin, a terminal, or a
pipe silent for a second run over /exec as below.

Output (stdout and stderr interleaved) streams as it comes. The exit code is the
program's; otherwise as exectl run: 3 authentication, 4 not allowed,
7 timed out, 8 server unreachable, 9 server error.

Examples:
  exectl ssh web uname -a
  exectl ssh web ls -la /tmp
  exectl ssh web 'cd /srv && nohup python3 -m http.server 8000 >log 2>&1 &'
  exectl ssh --key ~/.ssh/ci web 'cd app && npm test'`,
      );
  },
  optionsEndAtFirstOperand: true,
  run: (ctx, operands, options) =>
    runSsh(ctx, operands[0] as string, operands[1] as string[], options as SshOptions),
};
