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
import { bwrapArgs, INFO_FD } from './sandbox-args.js';
import type { MachineTools } from './sandbox-identity.js';
import { VmNetwork, type InboundListener } from './vm-network.js';
import { watchInit, type VmInit } from './vm-init.js';

// Long enough for bwrap to join the holder's user namespace on a busy machine.
const HOLDER_SECONDS = 60;

// The launcher, as host root in a private mount namespace of its own. Arguments: the VM's
// cgroup files, `--`, the image, the mount point, the VM's base id, unshare, then the command
// that enters the VM's user namespace (whose pid it appends as --target=) and runs bwrap.
// 1. it joins the VM's cgroups and mounts the image on the mount point (a folder of the
//    server's run folder, which the VM's ids may traverse). mkfs made lost+found as the host's
//    root, which the VM would see as nobody's folder in its home: it goes at the first boot
//    (e2fsck makes it again should it ever need one);
// 2. a holder makes the VM's user namespace and sleeps in it (long enough for bwrap to join,
//    then bwrap reaps it); once /proc shows it in a user namespace other than ours, the
//    launcher writes the id maps: 0–65535 inside = base…base+65535 outside. (util-linux's
//    `unshare --map-users` needs /etc/subuid entries; root may write the maps itself);
// 3. it enters that namespace as its root and execs bwrap.
// Our words only: paths and numbers of ours.
const LAUNCH_SCRIPT = [
  'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift',
  'mount -o loop,nodev,noatime "$1" "$2" || exit 125',
  '[ ! -d "$2/lost+found" ] || rmdir "$2/lost+found" || exit 125',
  'base=$3 unshare=$4; shift 4',
  // (Without our pipes: bwrap's info fd must close once bwrap has written to it.)
  `"$unshare" --user -- sleep ${HOLDER_SECONDS} < /dev/null > /dev/null 2>&1 3>&- & holder=$!`,
  'while [ /proc/$holder/ns/user -ef /proc/$$/ns/user ]; do :; done',
  `map="0 $base ${IDS_PER_VM}"`,
  'echo "$map" > /proc/$holder/uid_map && echo "$map" > /proc/$holder/gid_map || exit 125',
  'first=$1; shift',
  'exec "$first" --target=$holder "$@"',
].join('\n');

/** What a machine VM needs to boot. */
export interface MachineBoot {
  hostname: string;
  diskDir: string;
  idBase: number;
  cgroup: VmCgroup | null;
  systemArgs: string[];
  /** The server's listeners, shown inside at their host addresses. */
  inbound: readonly InboundListener[];
  /** This VM's folder for relay sockets. */
  runDir: string;
  /** An empty folder the VM's ids can reach, where the image is mounted for the VM. */
  mountPoint: string;
  /** A resolv.conf naming slirp4netns' DNS, bound over the VM's. */
  resolvConf: string;
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
    tools.nsenter,
    '--user',
    '--',
    tools.bwrap,
    '--unshare-net',
    '--ro-bind',
    boot.resolvConf,
    '/etc/resolv.conf',
    ...bwrapArgs(boot.hostname, boot.mountPoint, boot.systemArgs, false),
  ];
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: '/',
    env: { PATH: DEFAULT_PATH },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  const init = await watchInit(child, boot.hostname, child.stdio[INFO_FD] as Readable);
  const network = new VmNetwork(tools, init.pid, boot.runDir, boot.idBase);
  const machine: MachineInit = {
    ...init,
    launcherPid: child.pid!,
    mountPoint: boot.mountPoint,
    bootedAt: Date.now(),
    cgroup: boot.cgroup,
    network,
    alive: () => init.alive(),
    stop: async () => {
      network.stop();
      await init.stop();
      await boot.cgroup?.remove();
    },
  };
  try {
    await network.start(boot.inbound);
  } catch (err) {
    await machine.stop();
    throw err;
  }
  return machine;
}
