import type { ServiceConfig } from './config.js';
import type { SignIns } from './dashboard/sign-ins.js';
import type { Store } from './store/index.js';
import type { VmMachines } from './vm/index.js';

/** Where the service's listeners actually are (ports are known only once they listen). */
export interface ServiceEndpoints {
  /** Base URL of the HTTP listener, e.g. `http://127.0.0.1:7070`. */
  http: string;
  /** The SSH listener, or null when `--ssh-listen off`. */
  ssh: { host: string; port: number } | null;
  /** Base URL of the reflection listener, e.g. `http://127.0.0.1:7071`. */
  reflection: string;
  /** The SMTP listener (SPEC §4b); absent or null when there is none. */
  smtp?: { host: string; port: number } | null;
}

/** The VMs' own SSH addresses (SPEC §6a "Host names route SSH"), as the SSH listener serves them. */
export interface VmSshAddresses {
  /** The VM's own SSH address (`127.77.0.1`), or undefined where it has none (`vm+<name>@host`). */
  addressOf(vmId: number): string | undefined;
}

/** The collaborators every command receives as `ctx.deps`, wired by `createService`. */
export interface ServiceDeps {
  store: Store;
  machines: VmMachines;
  config: ServiceConfig;
  endpoints: ServiceEndpoints;
  /** The dashboard's sign-in links and sessions (`browser`, SPEC §11). */
  signIns: SignIns;
  /** Where each VM is an SSH destination of its own. */
  vmSshAddresses: VmSshAddresses;
  /** Milliseconds since the epoch; injected so tests can move time. */
  now(): number;
}

/**
 * The loopback ports the service itself listens on. VMs share the host's network, so a VM's
 * address must never forward to one of them: that would hand the reflection listener (and its
 * secrets) to anyone, or loop the proxy into itself.
 */
export function servicePorts(endpoints: ServiceEndpoints): Set<number> {
  const ports = new Set<number>();
  for (const url of [endpoints.http, endpoints.reflection]) {
    if (url !== '') ports.add(Number(new URL(url).port || (url.startsWith('https:') ? 443 : 80)));
  }
  if (endpoints.ssh !== null) ports.add(endpoints.ssh.port);
  if (endpoints.smtp != null) ports.add(endpoints.smtp.port);
  return ports;
}
