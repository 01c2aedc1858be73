// The one process the server spawns to boot a machine VM: a shell, as host root, that makes the
// VM's namespaces, starts its network helpers, then (through unshare and perl, in a private
// mount namespace) mounts its disk and root file system and becomes bwrap. Why one process for
// all of it: a spawn from the server's Node process costs 6–15 ms of its event loop (a fork of
// a large process), against about 1 ms from this shell; the network helpers used to be two
// more of those.
import { IDS_PER_VM } from '../id-ranges.js';

// Long enough for bwrap to join the holder's user namespace on a busy machine.
const HOLDER_SECONDS = 60;

/** The launcher's pipes to the server, by fd number inside it (fd 3 is bwrap's info fd). */
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

// Every helper the launcher starts gets none of the server's pipes.
const NO_PIPES = '</dev/null >/dev/null 2>&1 3>&- 4>&- 5>&- 6>&- 7>&-';

// Arguments: the fixed words of LauncherWords in order; the number of relays and their socat
// address pairs; the number of the VM's cgroup files and the files; last the command that
// enters the VM's user and network namespaces (given the holder's pid as --target=) and runs
// bwrap.
// 1. a holder makes the VM's user and network namespaces and sleeps in them (long enough for
//    bwrap to join, then bwrap reaps it); once /proc shows it in a user namespace other than
//    ours, the launcher writes the id maps: 0–65535 inside = base…base+65535 outside
//    (util-linux's `unshare --map-users` needs /etc/subuid entries; root may write the maps
//    itself);
// 2. it starts the VM's network: slirp4netns (outbound NAT, the host's loopback cut off) and one
//    socat relay per listener of the server, listening at the listener's host address inside
//    the VM's network namespace and carrying connections to its unix socket. A relay runs as
//    the VM's base id (the host id of the VM's root, whose processes live in a pid namespace
//    where no relay is seen; not `nobody`, which any host daemon may run as and could ptrace a
//    relay with) and dies with its parent, this process, which becomes the
//    VM's bwrap: the relays end with the VM. Both stay in the server's cgroups and its mount
//    namespace: none of them may hold the VM's disk mounted once the VM has stopped;
// 3. it tells the server the holder's pid (the server waits for the relays to listen there)
//    and the relays' (a launcher that dies before a relay has asked for PDEATHSIG leaves that
//    relay running: the server ends it), and joins the VM's cgroups;
// 4. in a mount namespace of its own, perl (machine/root-layout.ts) mounts the image on the mount
//    point (a folder of the server's run folder, which the VM's ids may traverse) and the VM's
//    root file system at <run folder>/root, then execs the command that runs bwrap.
// Our words only: paths and numbers of ours; the VM's name reaches bwrap's --hostname, checked
// at `new` to be a DNS label.
const LAUNCH_SCRIPT = [
  'image=$1 disk=$2 base=$3 unshare=$4 perl=$5 ROOT_PERL=$6 marker=$7 snapshot=$8 vmrun=$9',
  'folders=${10} slirp=${11} nsenter=${12} setpriv=${13} socat=${14} relays=${15}; shift 15',
  `"$unshare" --user --net -- sleep ${HOLDER_SECONDS} ${NO_PIPES} & holder=$!`,
  'while [ /proc/$holder/ns/user -ef /proc/$$/ns/user ]; do :; done',
  `map="0 $base ${IDS_PER_VM}"`,
  'echo "$map" > /proc/$holder/uid_map && echo "$map" > /proc/$holder/gid_map || exit 125',
  [
    '"$slirp" --configure --mtu=65520 --disable-host-loopback --enable-sandbox --enable-seccomp',
    `--ready-fd=${LAUNCHER_FD.slirpReady} --exit-fd=${LAUNCHER_FD.slirpExit} $holder tap0`,
    `</dev/null >/dev/null 2>&${LAUNCHER_FD.slirpErrors} 3>&- 4>&- &`,
  ].join(' '),
  'pids=$holder',
  'while [ "$relays" -gt 0 ]; do',
  '  "$nsenter" --target=$holder --net -- "$setpriv" --reuid=$base --regid=$base --clear-groups \\',
  `    --no-new-privs --pdeathsig=SIGKILL -- "$socat" "$1" "$2" ${NO_PIPES} &`,
  '  pids="$pids $!"; shift 2; relays=$((relays - 1))',
  'done',
  'exec 5>&- 6>&- 7>&-',
  'echo $pids >&4; exec 4>&-',
  'cgroups=$1; shift',
  'while [ "$cgroups" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; cgroups=$((cgroups - 1)); done',
  'exec "$unshare" --mount --propagation private -- "$perl" -e "$ROOT_PERL" \\',
  '  "$image" $holder "$disk" "$marker" $base "$vmrun" "$snapshot" $folders -- "$@"',
].join('\n');

/** The launcher's fixed words (LAUNCH_SCRIPT names them), in its order. */
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
    LAUNCH_SCRIPT,
    'launch',
    words.image,
    words.mountPoint,
    String(words.idBase),
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
