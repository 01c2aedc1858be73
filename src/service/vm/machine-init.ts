// Booting a VM as a machine of its own (the server runs as root): a private range of host ids,
// a fixed-size disk image, cgroup limits, and a network namespace with slirp4netns.
//
// The order matters:
// 1. a holder process makes the VM's user namespace and sleeps; the server (root) writes its id
//    maps: 0–65535 inside = base…base+65535 outside. (util-linux's `unshare --map-users` needs
//    /etc/subuid entries; root may write maps itself.)
// 2. the launcher makes a private mount namespace (still host root, the only one allowed to
//    mount ext4), joins the VM's cgroups, mounts the disk image, then enters the holder's user
//    namespace as its root and execs bwrap, which makes the pid, net, ipc, uts and mount
//    namespaces of the VM. The image's mount lives as long as that namespace: the VM's life.
// 3. once bwrap reports the VM's pid 1, the holder goes and the network starts.
import { spawn, type ChildProcess } from 'node:child_process';
import { readlink, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
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

/** Joins the cgroups named before `--`, then runs the rest: our fixed words only. */
export const JOIN_CGROUPS =
  'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

// In the launcher's private mount namespace: join the VM's cgroups (the files named before
// `--`), mount the image on the VM's mount point (a folder of the server's run folder, which
// the VM's ids may traverse), then run the rest. mkfs made lost+found as the host's root,
// which the VM would see as nobody's folder in its home: it goes at the first boot (e2fsck
// makes it again should it ever need one). Our words only: paths of ours.
const HOLDER_TIMEOUT_MS = 10_000;

const STAGE_SCRIPT = [
  'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done',
  'shift',
  'mount -o loop,nodev,noatime "$1" "$2"',
  '{ [ ! -d "$2/lost+found" ] || rmdir "$2/lost+found"; }',
  'shift 2',
  'exec "$@"',
].join(' && ');

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
  const holder = await startHolder(tools);
  try {
    const map = `0 ${boot.idBase} ${IDS_PER_VM}\n`;
    await writeFile(`/proc/${holder.pid}/uid_map`, map);
    await writeFile(`/proc/${holder.pid}/gid_map`, map);
    const argv = [
      tools.unshare,
      '--mount',
      '--propagation',
      'private',
      '--',
      '/bin/sh',
      '-c',
      STAGE_SCRIPT,
      'stage',
      ...(boot.cgroup?.procsFiles ?? []),
      '--',
      join(boot.diskDir, IMAGE_NAME),
      boot.mountPoint,
      tools.nsenter,
      `--target=${holder.pid}`,
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
  } finally {
    holder.kill('SIGKILL');
  }
}

// The holder makes the VM's user namespace and sleeps in it until the VM's bwrap has joined
// it. No handshake: the namespace exists once /proc shows the holder in a user namespace
// other than ours (unshare(2) is done before unshare(1) execs sleep).
async function startHolder(tools: MachineTools): Promise<ChildProcess> {
  const child = spawn(tools.unshare, ['--user', '--', '/bin/sleep', 'infinity'], {
    env: { PATH: DEFAULT_PATH },
    stdio: 'ignore',
  });
  const ours = await readlink('/proc/self/ns/user');
  const deadline = Date.now() + HOLDER_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    const theirs = await readlink(`/proc/${child.pid}/ns/user`).catch(() => ours);
    if (theirs !== ours) return child;
    if (Date.now() > deadline) break;
    await sleep(1);
  }
  child.kill('SIGKILL');
  throw new Error("could not make the VM's user namespace");
}
