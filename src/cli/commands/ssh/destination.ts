// Where a VM's own SSH server is (SPEC §6a: `ls` gives ssh_host, ssh_port, ssh_user): what
// `exectl ssh` uses for input on stdin, and what it names when there is no command to run.
import { ExectlError } from '../../../errors.js';
import type { PreparedLine } from '../../../command-line.js';
import type { CliContext } from '../../context.js';
import { NO_LIMIT_HINT, responseError } from '../../exec/answer.js';
import { sendSigned } from '../../exec/send-signed.js';
import type { Settings } from '../../settings.js';
import type { SshDestination } from './over-ssh.js';
import { sshAddressIn, sshCommandFor } from '../../ssh-command.js';

/** `ssh_host`, `ssh_port` and `ssh_user` of the VM from `ls`; undefined with SSH off. */
export async function sshDestination(
  ctx: CliContext,
  settings: Settings,
  vm: string,
): Promise<SshDestination | undefined> {
  const scope = 'ls';
  const prepared: PreparedLine = { line: `ls ${vm}`, scope, path: 'ls', repeatable: true };
  const { response, signedBy } = await sendSigned(ctx, settings, {
    flag: undefined,
    scope,
    request: { prepared },
  });
  if (response.status !== 200)
    throw responseError(response, { url: settings.url, scope, signedBy });
  const listed = JSON.parse(response.body.toString('utf8')) as {
    vms: { vm_name: string; ssh_host?: unknown; ssh_port?: unknown; ssh_user?: unknown }[];
  };
  const found = listed.vms.find((v) => v.vm_name === vm);
  if (found === undefined) {
    throw new ExectlError('command_failed', `vm "${vm}" not found`, { hint: 'exectl run ls' });
  }
  return sshAddressIn(found);
}

/**
 * `exectl ssh web` with no command: /exec runs commands, not shells, so the hint names the
 * VM's own SSH destination, which gives a login shell (the exact `ssh` line when the server
 * answers, else where to read it).
 */
export async function noCommand(
  ctx: CliContext,
  settings: Settings,
  vm: string,
): Promise<ExectlError> {
  let dest: SshDestination | undefined;
  try {
    dest = await sshDestination(ctx, settings, vm);
  } catch (err) {
    if (err instanceof ExectlError && err.message === `vm "${vm}" not found`) return err;
    dest = undefined;
  }
  const shell =
    dest === undefined
      ? `ssh to the VM's ssh_dest (in "exectl run ls ${vm}")`
      : sshCommandFor(dest);
  return new ExectlError('usage', `exectl ssh ${vm} needs a command to run`, {
    hint: `for a shell in the VM: ${shell}; for a command: exectl ssh ${vm} uname -a`,
  });
}

/**
 * A timeout's hint with the exact `ssh` line of the VM's own SSH server, which has no 30 s
 * limit (SPEC §6a); any other error, or a server with SSH off, as it is.
 */
export async function withSessionHint(
  ctx: CliContext,
  settings: Settings,
  vm: string,
  err: ExectlError,
): Promise<ExectlError> {
  if (err.code !== 'timeout' || err.hint?.includes(NO_LIMIT_HINT) !== true) return err;
  const dest = await sshDestination(ctx, settings, vm).catch(() => undefined);
  if (dest === undefined) return err;
  const exact = `${sshCommandFor(dest)} has no limit, or run it in the background (nohup, setsid)`;
  return new ExectlError('timeout', err.message, { hint: err.hint.replace(NO_LIMIT_HINT, exact) });
}
