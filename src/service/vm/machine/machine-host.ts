// What machine VMs need of the host: its tools, and what all of them share.
import type { CgroupHost } from '../cgroups/index.js';
import type { DiskTools, ImageTemplates } from '../disk/index.js';
import type { InboundListener, SlirpTools } from '../network/index.js';
import type { VmRef } from '../runtime.js';
import { BWRAP_TOOLS, findAll, type BwrapTools, type ClientMounts } from '../sandbox/index.js';

/** The tools of a machine VM: its network, its disk image and its root file system too. */
export interface MachineTools extends BwrapTools, SlirpTools, DiskTools {
  perl: string;
  /** Copies a VM's disk image for `cp` (coreutils). */
  cp: string;
  /** Holds a running VM's file system still while `cp` copies its image (util-linux). */
  fsfreeze: string;
  /** Puts the email gateway's link-local address inside each VM (iproute2). */
  ip: string;
}

/** What machine VMs share on this host. */
export interface MachineHost {
  tools: MachineTools;
  /** Where VM cgroups go; null when the host has none usable (then no limits, said at start). */
  cgroups: CgroupHost | null;
  /** A folder of the server's (0711): the mount points of its VMs. */
  runDir: string;
  /** The host-wide folder of id-range claims. */
  registry: string;
  /** The server's listeners to show inside the VM `vm` (known once they listen). */
  inbound(vm: VmRef): readonly InboundListener[];
  /** The base system below every VM's root (base-system.ts). */
  baseSystem: string;
  /** The host's system folders shown copy-on-write in every VM's root (`usr`, real `lib*`…). */
  systemFolders: readonly string[];
  /** The exectl client, shown read-only inside every VM. */
  client: ClientMounts;
  /** Makes every fresh disk image (one mkfs per size). */
  images: ImageTemplates;
}

const MACHINE_TOOLS = {
  slirp4netns: 'slirp4netns',
  mkfs: 'mkfs.ext4',
  dumpe2fs: 'dumpe2fs',
  e2fsck: 'e2fsck',
  resize2fs: 'resize2fs',
  // The idmapped mounts of each VM's root (scripts/machine-root.pl); Debian's perl-base is essential.
  perl: 'perl',
  cp: 'cp',
  fsfreeze: 'fsfreeze',
  ip: 'ip',
} as const;

/** The tools of machine VMs, or the name of the first one missing (and its Debian package). */
export function findMachineTools(): MachineTools | { missing: string } {
  return findAll({
    ...Object.fromEntries(BWRAP_TOOLS.map((n) => [n, n])),
    ...MACHINE_TOOLS,
  }) as MachineTools | { missing: string };
}
