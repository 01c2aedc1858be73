// What `exectl run` tells a person about a long command: what the spinner waits for, and after
// `new` answers `creating` (its setup script still running, SPEC §4), how to follow it.
import type { CliContext } from '../../context.js';
import type { PreparedLine } from '../../../command-line.js';
import { lexCommandLine } from '../../../shell-words.js';
import { sshAddressIn, sshCommandFor } from '../../ssh-command.js';

/** Where a VM keeps its setup script's output (SPEC §4). */
const SETUP_LOG = '/var/log/exectl-setup.log';

/** The spinner's text for `prepared`: `new: waiting for the setup script`. */
export function spinnerText(prepared: PreparedLine): string {
  return `${prepared.path ?? prepared.scope ?? 'command'}: waiting for ${waitingFor(prepared)}`;
}

function waitingFor(prepared: PreparedLine): string {
  switch (prepared.path) {
    case 'new':
      return wordsOf(prepared.line).some((w) => /^--setup-script(=|$)/.test(w))
        ? 'the setup script'
        : 'the new VM';
    case 'cp':
      return 'the copy';
    case 'ssh':
      return 'the command in the VM';
    default:
      return 'the server';
  }
}

function wordsOf(line: string): string[] {
  try {
    return lexCommandLine(line);
  } catch {
    return [];
  }
}

/**
 * After `new` answered a VM still `creating`, the commands that watch it and read its setup
 * log, on stderr (stdout keeps the answer for scripts), unless `-q`. Only a VM name as the
 * service makes them is repeated: the answer comes from the network and goes to a terminal.
 */
export function noteStillCreating(ctx: CliContext, prepared: PreparedLine, body: Buffer): void {
  if (prepared.path !== 'new' || ctx.quiet) return;
  let answer: { vm_name?: unknown; status?: unknown; ssh_host?: unknown };
  try {
    answer = JSON.parse(body.toString('utf8')) as typeof answer;
  } catch {
    return;
  }
  const name = answer?.vm_name;
  if (answer?.status !== 'creating' || typeof name !== 'string') return;
  if (!/^[a-z][a-z0-9-]{0,62}$/.test(name)) return;
  // `exectl ssh` stops at 30 s, a script's log may go on for 15 minutes: the VM's own SSH
  // server follows it with no limit (SPEC §6a), where the server has one.
  const dest = sshAddressIn(answer);
  const readLog =
    dest === undefined
      ? `read its log with \`exectl ssh ${name} cat ${SETUP_LOG}\``
      : `follow its log with \`${sshCommandFor(dest)} tail -f ${SETUP_LOG}\` (no time limit)`;
  ctx.stderr.write(
    `exectl: vm "${name}" is still running its setup script — watch it with ` +
      `\`exectl run stat ${name}\`; ${readLog}\n`,
  );
}
