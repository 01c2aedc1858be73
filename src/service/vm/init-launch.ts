// The command lines that start a VM's sandbox and that run a command inside it.
import { shellArgv } from './run-command.js';
import { bwrapArgs } from './sandbox-args.js';
import type { BwrapTools, SandboxIdentity } from './sandbox-identity.js';

// Root case. bwrap must run as the unprivileged id, and that id cannot walk the path to the
// disk when a parent folder is private (the default data folder of root is under /root, mode
// 0700). So, in a private mount namespace of its own, root first binds the disk onto a
// reachable spot: `cd` into the disk, cover /tmp with a 0711 tmpfs (hiding nothing of the
// host: this namespace is the launcher's alone), bind `.` (the cwd, which still points at the
// disk even if the disk was under /tmp) there; then drop to the unprivileged id and exec
// bwrap. The binding dies with the namespace, i.e. with the VM.
const STAGED_DISK = '/tmp/exectl-disk';
const STAGE_SCRIPT = [
  'cd "$1"',
  'mount -t tmpfs -o mode=0711 exectl-stage /tmp',
  `mkdir ${STAGED_DISK}`,
  `mount --no-canonicalize --bind . ${STAGED_DISK}`,
  'cd /',
  'shift',
  'exec "$@"',
].join(' && ');

/** The argv that starts the init sandbox of the VM whose disk is `diskDir`. */
export function initArgv(
  tools: BwrapTools,
  identity: SandboxIdentity,
  hostname: string,
  diskDir: string,
  systemArgs: string[],
): [string, ...string[]] {
  if (!identity.serverIsRoot) return [tools.bwrap, ...bwrapArgs(hostname, diskDir, systemArgs)];
  return [
    tools.unshare,
    '--mount',
    '--propagation',
    'private',
    '--',
    '/bin/sh',
    '-c',
    STAGE_SCRIPT,
    'exectl-stage',
    diskDir,
    tools.setpriv,
    `--reuid=${identity.uid}`,
    `--regid=${identity.gid}`,
    '--clear-groups',
    '--',
    tools.bwrap,
    ...bwrapArgs(hostname, STAGED_DISK, systemArgs),
  ];
}

/**
 * How nsenter becomes the VM's root. A root server is not mapped in the VM's user namespace:
 * nsenter drops root's supplementary groups and switches to uid/gid 0 there (the
 * unprivileged id outside). Any other server already is the VM's root (bwrap mapped its uid
 * to 0), and may not call setgroups: it keeps its credentials.
 */
function credentialArgs(identity: SandboxIdentity): string[] {
  return identity.serverIsRoot ? [] : ['--preserve-credentials'];
}

/**
 * The argv that runs `command` inside the running VM whose pid 1 is `initPid`: nsenter joins
 * its user, mount, pid, ipc and uts namespaces (root and cwd too: `/root`) as uid 0 there;
 * setpriv then drops every capability, as bwrap does for the init, so the command is the
 * VM's root but holds no privilege even inside.
 */
export function joinArgv(
  tools: BwrapTools,
  identity: SandboxIdentity,
  initPid: number,
  command: string,
): [string, ...string[]] {
  return [
    tools.nsenter,
    `--target=${initPid}`,
    ...credentialArgs(identity),
    '--user',
    '--mount',
    '--pid',
    '--ipc',
    '--uts',
    '--root',
    '--wd',
    '--',
    tools.setpriv,
    '--bounding-set=-all',
    '--inh-caps=-all',
    '--no-new-privs',
    '--',
    ...shellArgv(command),
  ];
}

/** The argv that sets the hostname of the running VM whose pid 1 is `initPid`. */
export function hostnameArgv(
  tools: BwrapTools,
  identity: SandboxIdentity,
  initPid: number,
  name: string,
): [string, ...string[]] {
  return [
    tools.nsenter,
    `--target=${initPid}`,
    ...credentialArgs(identity),
    '--user',
    '--uts',
    '--',
    tools.hostname,
    name,
  ];
}
