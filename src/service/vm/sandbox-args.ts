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

/**
 * bwrap arguments that show the host's system folders read-only: a real folder is bound,
 * a symlink is recreated as the same symlink (so `/bin -> usr/bin` still resolves inside).
 */
export function systemFolderArgs(entries: readonly RootEntry[]): string[] {
  return entries
    .filter((e) => SYSTEM_FOLDERS.has(e.name) || e.name.startsWith('lib'))
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
const INIT_SCRIPT =
  'echo ready; exec >/dev/null 2>&1 </dev/null; while :; do sleep 86400 & wait $!; done';

/** The file descriptor on which bwrap reports the VM's pid 1 (JSON, `child-pid`). */
export const INFO_FD = 3;

/**
 * The bwrap command line of a VM's init sandbox. Namespaces: pid, ipc and uts (hostname = VM
 * name); user too when `ownUserNamespace` (VM root = the outside id bwrap runs as), which a
 * machine VM does not need: bwrap already runs as root of the VM's own user namespace there.
 * The VM's disk is `/root`, its `/tmp` a private tmpfs, everything else read-only.
 */
export function bwrapArgs(
  hostname: string,
  diskSource: string,
  systemArgs: string[],
  ownUserNamespace: boolean,
): string[] {
  return [
    ...(ownUserNamespace ? ['--unshare-user', '--uid', '0', '--gid', '0'] : []),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--hostname',
    hostname,
    // When the server dies (even by SIGKILL) its VMs die too; the next start begins afresh.
    '--die-with-parent',
    '--as-pid-1',
    ...systemArgs,
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--perms',
    '1777',
    '--tmpfs',
    '/tmp',
    '--bind',
    diskSource,
    VM_HOME,
    '--chdir',
    VM_HOME,
    '--remount-ro',
    '/',
    '--info-fd',
    String(INFO_FD),
    '--',
    '/bin/sh',
    '-c',
    INIT_SCRIPT,
  ];
}
