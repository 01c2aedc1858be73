// The bubblewrap command line of a VM's sandbox: which host folders it sees, and how.
import { readdirSync, readlinkSync } from 'node:fs';

/** One entry at the top of the host's root folder. */
export interface RootEntry {
  name: string;
  /** Set when the entry is a symlink (e.g. `/bin -> usr/bin` on merged-/usr systems). */
  symlinkTarget?: string;
  isDirectory: boolean;
}

/** Where the VM's disk appears inside: the home of the VM's root user. */
export const VM_HOME = '/root';

// The only host folders a VM sees (SPEC §4), plus every /lib* (lib32, lib64, libx32...).
const SYSTEM_FOLDERS = new Set(['usr', 'bin', 'sbin', 'etc']);

/** True for a top-level host folder the VMs see (user mode: read-only; machines: `etc` aside, copy-on-write). */
export function isSystemFolder(name: string): boolean {
  return SYSTEM_FOLDERS.has(name) || name.startsWith('lib');
}

/**
 * bwrap arguments that show the host's system folders read-only: a real folder is bound,
 * a symlink is recreated as the same symlink (so `/bin -> usr/bin` still resolves inside).
 */
export function systemFolderArgs(entries: readonly RootEntry[]): string[] {
  return entries
    .filter((e) => isSystemFolder(e.name))
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const path = `/${e.name}`;
      if (e.symlinkTarget !== undefined) return ['--symlink', e.symlinkTarget, path];
      return e.isDirectory ? ['--ro-bind', path, path] : [];
    });
}

/** The host's root folder as {@link systemFolderArgs} needs it. */
export function readHostRoot(): RootEntry[] {
  return readdirSync('/', { withFileTypes: true }).map((d) =>
    d.isSymbolicLink()
      ? { name: d.name, symlinkTarget: readlinkSync(`/${d.name}`), isDirectory: false }
      : { name: d.name, isDirectory: d.isDirectory() },
  );
}

// The sandbox's first process (pid 1 of the VM, via --as-pid-1). It says when the sandbox is
// set up, lets go of the server's pipes, then lives until killed. As pid 1 it reaps the
// orphans of background processes (the shell's `wait` reaps any child) and ignores signals
// from inside the VM, so `kill -9 -1` or `pkill sleep` in the VM cannot end the VM; if its
// sleep is killed, the loop starts another.
// At each boot a machine VM's init starts an executable /etc/rc.local as root (SPEC §4:
// services come back), in a session of its own, its output in /var/log/rc.local.log (nowhere
// when that cannot be written); the boot never waits for it. A user-mode VM's /etc is the
// host's: nothing of it runs at boot.
/**
 * The OOM score (oom_score_adj) of every process a machine VM runs but its init: what the
 * init starts sets it first, and each command's host-side start (join-machine.sh). Under
 * memory pressure the kernel kills the VM's hog, never its init (which keeps the server's
 * score), as a real machine's kernel never kills pid 1. Why not -1000 for the init instead:
 * lowering a score needs CAP_SYS_RESOURCE, which root lacks on hosts such as ours (a
 * microVM's bounding set); raising one's own needs nothing. In a memory cgroup the score adds
 * half the limit to a process's size: the init, a few pages, is never the largest.
 */
export const VM_OOM_SCORE = 500;
const VM_PROCESS_SCORE = `echo ${VM_OOM_SCORE} > /proc/self/oom_score_adj`;
const RC_LOCAL = [
  'if [ -x /etc/rc.local ]; then log=/var/log/rc.local.log',
  ': > $log || log=/dev/null',
  `(${VM_PROCESS_SCORE}; cd /root && HOME=/root USER=root LOGNAME=root exec setsid /etc/rc.local > $log 2>&1 &)`,
  'fi',
];
// An image's command (SPEC §4a), when the VM has one: the init's arguments are the text of
// scripts/vm-service.sh and its words, started in the background like rc.local.
const SERVICE = [
  'if [ $# -gt 0 ]; then service=$1; shift',
  `(${VM_PROCESS_SCORE}; cd /; exec /bin/sh -c "$service" service "$@" &)`,
  'fi',
];
const initScript = (machine: boolean) =>
  [
    'echo ready',
    'exec >/dev/null 2>&1 </dev/null',
    ...(machine ? RC_LOCAL : []),
    ...(machine ? SERVICE : []),
    machine
      ? `while :; do (${VM_PROCESS_SCORE}; exec sleep 86400) & wait $!; done`
      : 'while :; do sleep 86400 & wait $!; done',
  ].join('; ');

/** The file descriptor on which bwrap reports the VM's pid 1 (JSON, `child-pid`). */
export const INFO_FD = 3;

/**
 * The bwrap command line of a user-mode VM's init sandbox: a user namespace of one id (VM root
 * = the id bwrap runs as), pid, ipc and uts (hostname = VM name). The VM's disk is `/root`,
 * its `/tmp` a private tmpfs, everything else read-only: `systemArgs` and `extraArgs` (the
 * client's read-only mounts).
 */
export function bwrapArgs(
  hostname: string,
  diskSource: string,
  systemArgs: string[],
  extraArgs: string[] = [],
): string[] {
  return [
    '--unshare-user',
    '--uid',
    '0',
    '--gid',
    '0',
    ...namespaceArgs(hostname),
    ...systemArgs,
    ...kernelFolderArgs(),
    '--bind',
    diskSource,
    VM_HOME,
    ...extraArgs,
    '--remount-ro',
    '/',
    ...initArgs(false),
  ];
}

/**
 * The bwrap command line of a machine VM's init sandbox. bwrap runs as root of the VM's own
 * user namespace already; the root file system (scripts/machine-root.pl, writable, the VM's own) is
 * `rootDir`, with a fresh `/tmp` and `/run` at each boot and `extraArgs` (the client's
 * read-only mounts) on top. `service`: the script and words of an image's command
 * (image/vm-service.ts), started at boot; none when empty.
 */
export function machineBwrapArgs(
  hostname: string,
  rootDir: string,
  extraArgs: string[],
  service: readonly string[] = [],
): string[] {
  return [
    ...namespaceArgs(hostname),
    '--bind',
    rootDir,
    '/',
    ...kernelFolderArgs(),
    '--perms',
    '0755',
    '--tmpfs',
    '/run',
    '--perms',
    '1777',
    '--dir',
    '/run/lock',
    ...extraArgs,
    ...initArgs(true),
    'init',
    ...service,
  ];
}

function namespaceArgs(hostname: string): string[] {
  return [
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--hostname',
    hostname,
    // When the server dies (even by SIGKILL) its VMs die too; the next start begins afresh.
    '--die-with-parent',
    '--as-pid-1',
  ];
}

function kernelFolderArgs(): string[] {
  return ['--proc', '/proc', '--dev', '/dev', '--perms', '1777', '--tmpfs', '/tmp'];
}

function initArgs(machine: boolean): string[] {
  return [
    ...['--chdir', VM_HOME, '--info-fd', String(INFO_FD), '--'],
    ...['/bin/sh', '-c', initScript(machine)],
  ];
}
