// The command line that runs something inside a running VM: nsenter joins the namespaces of
// the VM's pid 1, and the in-VM launcher (process/in-vm-command.ts) takes the user's words from a pipe.
import { DEFAULT_PATH } from '../process/index.js';
import { inVmLaunch } from '../process/index.js';
import type { CommandLaunch } from '../process/index.js';
import type { BwrapTools } from './tools.js';
import { VM_OOM_SCORE } from './bwrap-args.js';
import { scriptText } from '../scripts/index.js';

/** The running VM a command joins. */
export interface JoinTarget {
  /** Host pid of the VM's pid 1. */
  initPid: number;
  /**
   * Machine VMs (root server): the cgroup files the launcher joins first, and the VM's own
   * network namespace joined too. Absent for user-mode VMs, which share the host's network.
   */
  machine?: { procsFiles: readonly string[] };
}

/**
 * The words that start a host-side process of a machine VM's (a command's start, the door
 * helper) in the VM's cgroups (`procsFiles`) with the OOM score of the VM's processes, before
 * it runs the words that follow them: everything it makes, memory and CPU and children, counts
 * against the VM's limits from its first instruction (scripts/join-machine.sh).
 */
export function joinCgroupsFirst(procsFiles: readonly string[]): string[] {
  return [
    '/bin/sh',
    '-c',
    scriptText('join-machine.sh'),
    'join',
    String(VM_OOM_SCORE),
    ...procsFiles,
    '--',
  ];
}

/**
 * Runs `argv` inside the VM as its root (uid 0 there: the VM's base id on the host, or the
 * server's own user in user mode), in its user, mount, pid, ipc, uts (and, for a machine,
 * net) namespaces, root and working folder `/root`, with exactly `env`.
 *
 * Root of a machine VM keeps the capabilities of the VM's own user namespace (so `chown` and
 * `dpkg` work inside): they reach nothing outside it. The host-side processes (sh, nsenter)
 * start with our PATH only; `env` and `argv` reach only the in-VM launcher, through a pipe.
 * `stderrApart`: see {@link inVmLaunch}.
 */
export function joinLaunch(
  tools: BwrapTools,
  target: JoinTarget,
  env: Readonly<Record<string, string>>,
  argv: readonly string[],
  stderrApart = false,
): CommandLaunch {
  const inVm = inVmLaunch(env, argv, stderrApart);
  const namespaces = ['--user', '--mount', '--pid', '--ipc', '--uts'];
  const nsenter = [
    tools.nsenter,
    `--target=${target.initPid}`,
    // A user-mode server is already the VM's root (bwrap mapped its uid to 0), and may not
    // call setgroups: it keeps its credentials. Root becomes uid/gid 0 of the VM.
    ...(target.machine === undefined ? ['--preserve-credentials'] : []),
    ...namespaces,
    ...(target.machine === undefined ? [] : ['--net']),
    '--root',
    '--wd',
    '--',
    ...inVm.argv,
  ];
  const launcher =
    target.machine === undefined
      ? nsenter
      : [...joinCgroupsFirst(target.machine.procsFiles), ...nsenter];
  return {
    argv: launcher as [string, ...string[]],
    env: { PATH: DEFAULT_PATH },
    cwd: '/',
    payload: inVm.payload,
  };
}
