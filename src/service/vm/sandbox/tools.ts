// Which tools the bwrap runtime needs, and in which mode it runs VMs.
import { readFileSync } from 'node:fs';
import type { ClientMounts } from './base-system.js';
import type { CgroupHost } from '../cgroups.js';
import type { DiskTools } from '../disk/index.js';
import type { ImageTemplates } from '../disk/index.js';
import { findExecutable } from '../process/index.js';
import type { InboundListener, NetworkTools } from '../network/index.js';

/** Absolute paths of the system tools every bwrap VM needs. */
export interface BwrapTools {
  bwrap: string;
  /** Joins a running VM's namespaces for each command (util-linux). */
  nsenter: string;
  /** Runs helpers under other ids (util-linux). */
  setpriv: string;
  /** Makes the namespaces a machine VM starts from (util-linux). */
  unshare: string;
}

/** The tools of a machine VM: its network, its disk image and its root file system too. */
export interface MachineTools extends BwrapTools, NetworkTools, DiskTools {
  perl: string;
  /** Copies a VM's disk image for `cp` (coreutils). */
  cp: string;
  /** Holds a running VM's file system still while `cp` copies its image (util-linux). */
  fsfreeze: string;
}

/**
 * How VMs run. `user`: the server is an ordinary user; a VM is a one-id user namespace on the
 * host's network with a folder disk and no limits (SPEC §4's degraded mode). `machine`: the
 * server is root; each VM has its own id range, network, disk image and cgroup limits.
 */
export type SandboxMode =
  | { kind: 'user'; /** The exectl client to show inside (absent: none). */ client?: ClientMounts }
  | ({ kind: 'machine' } & MachineHost);

/** What machine VMs share on this host. */
export interface MachineHost {
  tools: MachineTools;
  /** Where VM cgroups go; null when the host has none usable (then no limits, said at start). */
  cgroups: CgroupHost | null;
  /** A folder of the server's (0711): mount points and relay sockets of its VMs. */
  runDir: string;
  /** The host-wide folder of id-range claims. */
  registry: string;
  /** The server's listeners to show inside every VM (known once they listen). */
  inbound(): readonly InboundListener[];
  /** The base system below every VM's root (base-system.ts). */
  baseSystem: string;
  /** The host's system folders shown copy-on-write in every VM's root (`usr`, real `lib*`…). */
  systemFolders: readonly string[];
  /** The exectl client, shown read-only inside every VM. */
  client: ClientMounts;
  /** Makes every fresh disk image (one mkfs per size). */
  images: ImageTemplates;
}

const BWRAP_TOOLS = ['bwrap', 'nsenter', 'setpriv', 'unshare'] as const;
const MACHINE_TOOLS = {
  slirp4netns: 'slirp4netns',
  socat: 'socat',
  mkfs: 'mkfs.ext4',
  dumpe2fs: 'dumpe2fs',
  e2fsck: 'e2fsck',
  resize2fs: 'resize2fs',
  // The idmapped mounts of each VM's root (scripts/machine-root.pl); Debian's perl-base is essential.
  perl: 'perl',
  cp: 'cp',
  fsfreeze: 'fsfreeze',
} as const;

/** The tools, or the name of the first one missing. */
export function findBwrapTools(): BwrapTools | { missing: string } {
  return findAll(Object.fromEntries(BWRAP_TOOLS.map((n) => [n, n]))) as
    BwrapTools | { missing: string };
}

/** The tools of machine VMs, or the name of the first one missing (and its Debian package). */
export function findMachineTools(): MachineTools | { missing: string } {
  return findAll({
    ...Object.fromEntries(BWRAP_TOOLS.map((n) => [n, n])),
    ...MACHINE_TOOLS,
  }) as MachineTools | { missing: string };
}

function findAll(names: Record<string, string>): Record<string, string> | { missing: string } {
  const found: Record<string, string> = {};
  for (const [key, name] of Object.entries(names)) {
    const path = findExecutable(name);
    if (path === undefined) return { missing: name };
    found[key] = path;
  }
  return found;
}

/**
 * True when the server runs as the host's root (machine VMs are possible): uid 0 in the
 * initial user namespace, whose map is the identity of every id. Root of a container's user
 * namespace cannot mount disk images or write other namespaces' id maps.
 */
export function serverIsRoot(): boolean {
  if ((process.getuid?.() ?? 0) !== 0) return false;
  try {
    return /^\s*0\s+0\s+4294967295\s*$/.test(readFileSync('/proc/self/uid_map', 'utf8'));
  } catch {
    return false;
  }
}
