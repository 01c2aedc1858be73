// Which tools the bwrap runtimes need, and in which mode they run VMs.
import { readFileSync } from 'node:fs';
import type { ClientMounts } from './base-system.js';
import type { MachineHost } from '../machine/index.js';
import { findExecutable } from '../process/index.js';

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

/**
 * How VMs run. `user`: the server is an ordinary user; a VM is a one-id user namespace on the
 * host's network with a folder disk and no limits (SPEC §4's degraded mode). `machine`: the
 * server is root; each VM has its own id range, network, disk image and cgroup limits.
 */
export type SandboxMode =
  | { kind: 'user'; /** The exectl client to show inside (absent: none). */ client?: ClientMounts }
  | ({ kind: 'machine' } & MachineHost);

/** The tools every bwrap VM needs, by name. */
export const BWRAP_TOOLS = ['bwrap', 'nsenter', 'setpriv', 'unshare'] as const;
/** The tools, or the name of the first one missing. */
export function findBwrapTools(): BwrapTools | { missing: string } {
  return findAll(Object.fromEntries(BWRAP_TOOLS.map((n) => [n, n]))) as
    BwrapTools | { missing: string };
}

/** Each tool's path, by its key, or the name of the first one missing. */
export function findAll(
  names: Record<string, string>,
): Record<string, string> | { missing: string } {
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
