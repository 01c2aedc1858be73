// The one process the server spawns to boot a machine VM: a shell, as host root, that makes the
// VM's namespaces, starts its network program (vm/network/'s backend), then (through unshare and perl, in a private
// mount namespace) mounts its disk and root file system and becomes bwrap. Why one process for
// all of it: a spawn from the server's Node process costs 6–15 ms of its event loop (a fork of
// a large process), against about 1 ms from this shell.
import { IDS_PER_VM } from '../id-ranges.js';
import type { LauncherNetwork } from '../network/index.js';
import { scriptText } from '../scripts/index.js';

/**
 * The launcher's pipes to the server, by fd number inside it (fd 3 is bwrap's info fd); the
 * network program's pipes follow, from {@link NETWORK_FIRST_FD} on (vm/network/backend.ts).
 */
export const LAUNCHER_FD = {
  /** Once the VM's namespaces exist and its network started, the holder's pid; then closed. */
  launched: 4,
} as const;

/** The network program's first pipe (launch-machine.sh hands down its fds as they are). */
export const NETWORK_FIRST_FD = 5;

/** The launcher's fixed words (launch-machine.sh names them), in its order. */
export interface LauncherWords {
  image: string;
  mountPoint: string;
  idBase: number;
  unshare: string;
  perl: string;
  rootProgram: string;
  layoutMarker: string;
  baseSystem: string;
  vmRunDir: string;
  /** The host's system folders shown copy-on-write: one word, space-separated. */
  systemFolders: string;
  /** The first host id owning the lower layer's files: null for the base system (host ids). */
  lowerIds: number | null;
}

/** The launcher's argv: the shell and its words. */
export function launcherArgv(
  words: LauncherWords,
  cgroupFiles: readonly string[],
  network: LauncherNetwork,
  enterAndBwrap: readonly string[],
): string[] {
  return [
    '/bin/sh',
    '-c',
    scriptText('launch-machine.sh'),
    'launch',
    words.image,
    words.mountPoint,
    String(words.idBase),
    String(IDS_PER_VM),
    words.unshare,
    words.perl,
    words.rootProgram,
    words.layoutMarker,
    words.baseSystem,
    words.vmRunDir,
    words.systemFolders,
    words.lowerIds === null ? '-' : String(words.lowerIds),
    String(cgroupFiles.length),
    ...cgroupFiles,
    String(network.argv.length),
    String(network.pipes),
    ...network.argv,
    ...enterAndBwrap,
  ];
}
