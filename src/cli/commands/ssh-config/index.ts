// `exectl ssh-config [--write]` (SPEC §6a "Host names route SSH"): OpenSSH `Host` blocks for
// every VM the key may reach, `<vm>.<vm-domain>`, so that ssh, scp, sftp and rsync -e ssh work
// with no flags; the server's host key pinned in exectl's own known-hosts file.
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { ExectlError } from '../../../errors.js';
import { fsCause } from '../../../fs-cause.js';
import type { PreparedLine } from '../../../command-line.js';
import type { CliCommand, CommandOutcome } from '../../command.js';
import type { CliContext } from '../../context.js';
import { responseError } from '../../exec/answer.js';
import { sendSigned } from '../../exec/send-signed.js';
import { configPath, expandHome, type Settings } from '../../settings.js';
import { writeWholeFile } from '../../write-whole-file.js';
import { knownHostName, renderBlocks, vmHost, type ListedVm, type VmHost } from './blocks.js';
import { fetchHostKey } from './host-key.js';
import { withBlock, withKnownHosts } from './merge.js';

interface SshConfigOptions {
  write?: boolean;
  file?: string;
  token?: string;
  key?: string;
}

async function runSshConfig(ctx: CliContext, options: SshConfigOptions): Promise<CommandOutcome> {
  const settings = ctx.settings({ key: options.key });
  const hosts: VmHost[] = [];
  for (const vm of await listVms(ctx, settings, options.token)) {
    const checked = vmHost(vm);
    if ('skipped' in checked) ctx.stderr.write(`exectl: left out ${checked.skipped}\n`);
    else hosts.push(checked);
  }
  const knownHosts = join(dirname(configPath(ctx.env)), 'ssh_known_hosts');
  await pinHostKey(knownHosts, hosts);
  const block = renderBlocks(hosts, {
    knownHosts,
    identityFile:
      settings.keyPath === undefined ? undefined : resolve(expandHome(settings.keyPath, ctx.env)),
  });
  if (options.write !== true) {
    ctx.stdout.write(block);
    return undefined;
  }
  const file = resolve(expandHome(options.file ?? '~/.ssh/config', ctx.env));
  let current = '';
  try {
    current = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw cannotRead(file, err);
  }
  let merged: string;
  try {
    merged = withBlock(current, block);
  } catch (err) {
    throw new ExectlError('usage', `cannot update ${file}: ${(err as Error).message}`, {
      hint: 'keep one begin line and one end line after it (or remove both), then run it again',
    });
  }
  if (merged !== current) await writeWholeFile(file, merged, 'the ssh config');
  ctx.stderr.write(`exectl: ${hosts.length} VM${hosts.length === 1 ? '' : 's'} in ${file}\n`);
  return undefined;
}

/** `ls --json`'s VMs, signed for `ls` alone. */
async function listVms(
  ctx: CliContext,
  settings: Settings,
  token: string | undefined,
): Promise<ListedVm[]> {
  const scope = 'ls';
  const prepared: PreparedLine = { line: 'ls --json', scope, path: 'ls', repeatable: true };
  const { response, signedBy } = await sendSigned(ctx, settings, {
    flag: token,
    scope,
    request: { prepared },
  });
  if (response.status !== 200)
    throw responseError(response, { url: settings.url, scope, signedBy });
  const answer = JSON.parse(response.body.toString('utf8')) as { vms?: unknown };
  return Array.isArray(answer.vms) ? (answer.vms as ListedVm[]) : [];
}

/**
 * Writes the server's host key for every host of `hosts` into exectl's known-hosts file (the
 * lines of other hosts kept). Every VM is served by the one SSH listener, so one key is read,
 * from the first VM's address.
 */
async function pinHostKey(knownHosts: string, hosts: readonly VmHost[]): Promise<void> {
  const first = hosts[0];
  if (first === undefined) return;
  let key: string;
  try {
    key = await fetchHostKey(first.host, first.port);
  } catch (err) {
    throw new ExectlError(
      'unreachable',
      `cannot read the host key of the SSH listener at ${first.host}:${first.port}: ${(err as Error).message}`,
      { hint: "check that the server's SSH listener is reachable from here" },
    );
  }
  const entries = new Map(hosts.map((h) => [knownHostName(h.host, h.port), key]));
  let current = '';
  try {
    current = await readFile(knownHosts, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw cannotRead(knownHosts, err);
  }
  await writeWholeFile(knownHosts, withKnownHosts(current, entries), 'the known-hosts file');
}

function cannotRead(path: string, err: unknown): ExectlError {
  return new ExectlError('usage', `cannot read ${path}: ${fsCause(err)}`, {
    hint: `check the permissions of ${dirname(path)}`,
  });
}

export const command: CliCommand = {
  declare(cmd: Command) {
    cmd
      .description('print, or write into ~/.ssh/config, a Host block for every VM')
      .option('--write', 'write the blocks into the ssh config instead of printing them')
      .option('--file <path>', 'the ssh config --write changes (default ~/.ssh/config)')
      .option('--token <token>', 'bearer token (env EXECTL_TOKEN; else minted for "ls")')
      .option('--key <path>', 'private key for the minted token and the blocks (env EXECTL_KEY)')
      .addHelpText(
        'after',
        `
Each block is named <vm>.<vm-domain> (as the VM's URL), so ssh web.<vm-domain>,
scp f web.<vm-domain>: and rsync -e ssh reach the VM with no flags. The server's
host key is pinned in ${'$XDG_CONFIG_HOME'}/exectl/ssh_known_hosts. --write keeps
every line of the file outside "# exectl ssh-config begin" / "# exectl ssh-config
end"; run it again after new, rm or cp. See exectl-ssh-config(1).`,
      );
  },
  run: (ctx, _operands, options) => runSshConfig(ctx, options as SshConfigOptions),
};
