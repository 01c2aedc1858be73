// Booting a VM as a machine of its own (the server runs as root): a private range of host ids,
// a fixed-size disk image, cgroup limits, and a network namespace with slirp4netns. The steps
// and their order are in LAUNCH_SCRIPT; then the network starts.
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import type { VmCgroup } from './cgroups.js';
import { DEFAULT_PATH } from './command-env.js';
import { IMAGE_NAME } from './disk-image.js';
import { IDS_PER_VM } from './id-ranges.js';
import { clientMountArgs, type ClientMounts } from './base-system.js';
import { LAYOUT_MARKER, ROOT_PERL } from './machine-root.js';
import { INFO_FD, machineBwrapArgs } from './sandbox-args.js';
import type { MachineTools } from './sandbox-identity.js';
import { VmNetwork, type InboundListener } from './vm-network.js';
import { watchInit, type VmInit } from './vm-init.js';

// Long enough for bwrap to join the holder's user namespace on a busy machine.
const HOLDER_SECONDS = 60;

// The launcher, as host root in a private mount namespace of its own. Arguments: the VM's
// cgroup files, `--`, the image, the mount point, the VM's base id, unshare, perl, the root
// program, the layout marker, the base system, the VM's run folder, the host's system folders
// (one word), then the command that enters the VM's user namespace (whose pid it appends as
// --target=) and runs bwrap.
// 1. it joins the VM's cgroups;
// 2. a holder makes the VM's user and network namespaces and sleeps in them (long enough for
//    bwrap to join, then bwrap reaps it); once /proc shows it in a user namespace other than
//    ours, the launcher writes the id maps: 0–65535 inside = base…base+65535 outside
//    (util-linux's `unshare --map-users` needs /etc/subuid entries; root may write the maps
//    itself), and tells the server the holder's pid on fd 4, so that the network starts;
// 3. it mounts the image on the mount point (a folder of the server's run folder, which the
//    VM's ids may traverse) and the VM's root file system (machine-root.ts, in perl) at
//    <run folder>/root;
// 4. it enters those namespaces as their root and execs bwrap.
// Our words only: paths and numbers of ours.
const LAUNCH_SCRIPT = [
  'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift',
  'image=$1 disk=$2 base=$3 unshare=$4 perl=$5 ROOT_PERL=$6 marker=$7 snapshot=$8 vmrun=$9',
  'folders=${10}; shift 10',
  // (Without our pipes: bwrap's info fd must close once bwrap has written to it.)
  `"$unshare" --user --net -- sleep ${HOLDER_SECONDS} < /dev/null > /dev/null 2>&1 3>&- 4>&- & holder=$!`,
  'while [ /proc/$holder/ns/user -ef /proc/$$/ns/user ]; do :; done',
  `map="0 $base ${IDS_PER_VM}"`,
  'echo "$map" > /proc/$holder/uid_map && echo "$map" > /proc/$holder/gid_map || exit 125',
  // The server starts the VM's network now, while the root file system is mounted.
  'echo $holder >&4; exec 4>&-',
  'mount -o loop,nodev,noatime "$image" "$disk" || exit 125',
  '"$perl" -e "$ROOT_PERL" /proc/$holder/ns/user "$disk" "$marker" $base "$vmrun" "$snapshot" $folders || exit 125',
  'first=$1; shift',
  'exec "$first" --target=$holder "$@"',
].join('\n');

/** What a machine VM needs to boot. */
interface MachineBoot {
  hostname: string;
  diskDir: string;
  idBase: number;
  cgroup: VmCgroup | null;
  /** The server's listeners, shown inside at their host addresses. */
  inbound: readonly InboundListener[];
  /** This VM's folder for relay sockets. */
  runDir: string;
  /** An empty folder the VM's ids can reach, where the image is mounted for the VM. */
  mountPoint: string;
  /** The VM's own folder of the run folder: its root file system is assembled there. */
  vmRunDir: string;
  /** The base system below the VM's root (base-system.ts). */
  baseSystem: string;
  /** The host's system folders shown copy-on-write (`usr`, and real `bin`, `lib*`…). */
  systemFolders: readonly string[];
  /** The exectl client's read-only mounts. */
  client: ClientMounts;
}

/** A running machine VM: its init, plus what `stat`, `resize` and the proxy reach. */
export interface MachineInit extends VmInit {
  /** The host pid of the launcher: its mount namespace holds the disk image's mount. */
  readonly launcherPid: number;
  /** Where the disk image is mounted in the launcher's mount namespace. */
  readonly mountPoint: string;
  /** When the VM booted (ms since the epoch). */
  readonly bootedAt: number;
  readonly cgroup: VmCgroup | null;
  readonly network: VmNetwork;
}

/** Boots the VM; rejects with the first step's own message when it cannot. */
export async function startMachineInit(
  tools: MachineTools,
  boot: MachineBoot,
): Promise<MachineInit> {
  const argv = [
    tools.unshare,
    '--mount',
    '--propagation',
    'private',
    '--',
    '/bin/sh',
    '-c',
    LAUNCH_SCRIPT,
    'launch',
    ...(boot.cgroup?.procsFiles ?? []),
    '--',
    join(boot.diskDir, IMAGE_NAME),
    boot.mountPoint,
    String(boot.idBase),
    tools.unshare,
    tools.perl,
    ROOT_PERL,
    join(boot.diskDir, LAYOUT_MARKER),
    boot.baseSystem,
    boot.vmRunDir,
    boot.systemFolders.join(' '),
    tools.nsenter,
    '--user',
    '--net',
    '--',
    tools.bwrap,
    ...machineBwrapArgs(boot.hostname, join(boot.vmRunDir, 'root'), clientMountArgs(boot.client)),
  ];
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: '/',
    env: { PATH: DEFAULT_PATH },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
  });
  // The network starts as soon as the namespaces exist, and is up alongside the init.
  let network: VmNetwork | undefined;
  const networkUp = holderPid(child.stdio[HOLDER_FD] as Readable).then((pid) => {
    network = new VmNetwork(tools, pid, boot.runDir, boot.idBase);
    return network.start(boot.inbound);
  });
  // Awaited below; a launcher that fails early rejects it before anything awaits it.
  networkUp.catch(() => {});
  let init: VmInit;
  try {
    init = await watchInit(child, boot.hostname, child.stdio[INFO_FD] as Readable);
  } catch (err) {
    await networkUp.catch(() => {});
    network?.stop();
    throw err;
  }
  const machine: MachineInit = {
    ...init,
    launcherPid: child.pid!,
    mountPoint: boot.mountPoint,
    bootedAt: Date.now(),
    cgroup: boot.cgroup,
    get network() {
      return network!;
    },
    alive: () => init.alive(),
    stop: async () => {
      network?.stop();
      await init.stop();
      await boot.cgroup?.remove();
    },
  };
  try {
    await networkUp;
  } catch (err) {
    await machine.stop();
    throw err;
  }
  network!.follow(init.pid);
  return machine;
}

/** The fd on which the launcher says its holder's pid. */
const HOLDER_FD = 4;

// The pid the launcher writes once the VM's namespaces exist; rejects when it ends first.
function holderPid(stream: Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    stream.on('end', () => {
      const pid = Number(text.trim());
      if (Number.isInteger(pid) && pid > 1) resolve(pid);
      else reject(new Error('the VM did not start'));
    });
    stream.on('error', reject);
  });
}
