// The one process the server spawns to boot a machine VM: a shell, as host root, that makes the
// VM's namespaces, starts its network helpers, then (through unshare and perl, in a private
// mount namespace) mounts its disk and root file system and becomes bwrap. Why one process for
// all of it: a spawn from the server's Node process costs 6–15 ms of its event loop (a fork of
// a large process), against about 1 ms from this shell; the network helpers used to be two
// more of those.
import { IDS_PER_VM } from '../id-ranges.js';
import { scriptText } from '../scripts/index.js';

/**
 * The launcher's pipes to the server, by fd number inside it (fd 3 is bwrap's info fd): the
 * numbers launch-machine.sh writes to and hands slirp4netns.
 */
export const LAUNCHER_FD = {
  /**
   * Once the VM's namespaces exist and its relays started, the launcher writes here the
   * holder's pid, then the relays' pids, and closes it.
   */
  launched: 4,
  /** slirp4netns writes here once the VM's network is configured. */
  slirpReady: 5,
  /** slirp4netns exits once the server's end of this pipe closes (stop, or the server's death). */
  slirpExit: 6,
  /** slirp4netns's own messages. */
  slirpErrors: 7,
} as const;

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
  /** What starts slirp4netns: words of network/slirp4netns.ts slirpCommand, space-separated. */
  slirp4netns: string;
  nsenter: string;
  setpriv: string;
  socat: string;
}

/** One relay: what it listens on inside the VM, and where it connects (socat addresses). */
export type RelayPair = readonly [listen: string, connect: string];

/** The launcher's argv: the shell and its words. */
export function launcherArgv(
  words: LauncherWords,
  cgroupFiles: readonly string[],
  relays: readonly RelayPair[],
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
    words.slirp4netns,
    words.nsenter,
    words.setpriv,
    words.socat,
    String(relays.length),
    ...relays.flat(),
    String(cgroupFiles.length),
    ...cgroupFiles,
    ...enterAndBwrap,
  ];
}
