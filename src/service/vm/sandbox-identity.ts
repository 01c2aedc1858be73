// Which host identity a VM's root is, and which tools the bwrap runtime needs for it.
import { findExecutable } from './executables.js';

/** The unprivileged host id ("nobody") that a VM's root maps to when the server is root. */
export const UNPRIVILEGED_ID = 65534;

/** Who the VMs are on the host. */
export interface SandboxIdentity {
  /** The host uid/gid the VM's root (uid 0 inside) maps to, and that owns the VM disks. */
  uid: number;
  gid: number;
  /**
   * True when the server runs as root. Then bwrap itself is started as {@link UNPRIVILEGED_ID}
   * (bwrap run as root would map the VM's root to the host's root), which needs the disk
   * staged where that id can reach it (see init-launch.ts).
   */
  serverIsRoot: boolean;
}

/** Root: VMs run as the unprivileged id. Otherwise: as the server's own user. */
export function sandboxIdentity(): SandboxIdentity {
  const uid = process.getuid?.() ?? 0;
  if (uid === 0) return { uid: UNPRIVILEGED_ID, gid: UNPRIVILEGED_ID, serverIsRoot: true };
  return { uid, gid: process.getgid?.() ?? uid, serverIsRoot: false };
}

/** Absolute paths of the system tools the bwrap runtime runs. */
export interface BwrapTools {
  bwrap: string;
  /** Joins a running VM's namespaces for each command (util-linux). */
  nsenter: string;
  /** Drops every capability before the command starts (util-linux). */
  setpriv: string;
  /** Sets a renamed VM's hostname without restarting it. */
  hostname: string;
  /** Root only: the private mount namespace that stages the disk (util-linux). */
  unshare: string;
}

const TOOL_NAMES = ['bwrap', 'nsenter', 'setpriv', 'hostname', 'unshare'] as const;

/** The tools, or the name of the first one missing. */
export function findBwrapTools(): BwrapTools | { missing: string } {
  const paths = TOOL_NAMES.map((name) => findExecutable(name));
  const [bwrap, nsenter, setpriv, hostname, unshare] = paths;
  if (bwrap && nsenter && setpriv && hostname && unshare) {
    return { bwrap, nsenter, setpriv, hostname, unshare };
  }
  return { missing: TOOL_NAMES[paths.indexOf(undefined)] ?? 'bwrap' };
}
