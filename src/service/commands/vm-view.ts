// The JSON shapes of a VM in command answers (SPEC §3), and the addresses users reach it at.
import { ALL_DIALECTS } from '../../dialects.js';
import { vmDomainOf } from '../config.js';
import type { ServiceDeps } from '../deps.js';
import type { VmRecord } from '../store/index.js';
import type { VmListing, VmSummary } from '../../text-views/vms.js';
import { regionDisplay } from '../rules/regions.js';

/** Addresses a listener on every interface: not something a user can connect to. */
const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::', '[::]']);

/**
 * The VM's public address through the HTTP listener's VM proxy (SPEC §6):
 * `<scheme>://<vm>.<vm-domain>[:<port>]`, `https` when the server has TLS, the port of the HTTP
 * listener (left out when it is the scheme's default).
 */
export function httpsUrl(deps: ServiceDeps, vmName: string): string {
  const scheme = deps.config.tls === null ? 'http' : 'https';
  const { port } = new URL(deps.endpoints.http);
  return `${scheme}://${vmName}.${vmDomainOf(deps.config)}${port === '' ? '' : `:${port}`}`;
}

/** The VM as an SSH destination (SPEC §6a): all four null when the SSH listener is off. */
interface SshAddress {
  ssh_dest: string | null;
  ssh_host: string | null;
  ssh_port: number | null;
  ssh_user: string | null;
}

/**
 * Where users `ssh`/`scp` to the VM. Where it has an SSH address of its own (a root server,
 * SPEC §6a "Host names route SSH") that bare address, any user name reaching the VM (`root`,
 * the user inside, is given). Else user `vm+<name>` on the SSH listener, whose host is the
 * domain when the listener is on a loopback or wildcard address (an address of this machine
 * only, or of every interface: the domain is how others name it), else the listen address (see
 * {@link ownHostName}).
 */
function sshAddress(deps: ServiceDeps, vm: VmRecord): SshAddress {
  const ssh = deps.endpoints.ssh;
  if (ssh === null) return { ssh_dest: null, ssh_host: null, ssh_port: null, ssh_user: null };
  const own = deps.vmSshAddresses.addressOf(vm.id);
  if (own !== undefined) {
    return { ssh_dest: own, ssh_host: own, ssh_port: ssh.port, ssh_user: 'root' };
  }
  const loopback = /^127\./.test(ssh.host) || ssh.host === '::1' || ssh.host === 'localhost';
  const host =
    WILDCARD_HOSTS.has(ssh.host) || loopback ? ownHostName(deps.config.domain) : ssh.host;
  const user = `vm+${vm.name}`;
  return { ssh_dest: `${user}@${host}`, ssh_host: host, ssh_port: ssh.port, ssh_user: user };
}

/**
 * A host name of this server for `domain`: the domain itself, except the real service's own
 * (`exe.dev`, the default of `--compat exe.dev`, SPEC §12), which would send the user there:
 * `localhost` then.
 */
function ownHostName(domain: string): string {
  return ALL_DIALECTS.some((d) => d.compat !== null && d.domain === domain) ? 'localhost' : domain;
}

/** Where the VM was made and what it runs, as the real service's clients read them. */
function placement(vm: VmRecord): Pick<VmSummary, 'region' | 'region_display' | 'image'> {
  // The image as given to `new --image`; null: the host's base system.
  return {
    region: vm.region,
    region_display: regionDisplay(vm.region),
    image: vm.image?.reference ?? null,
  };
}

export function vmSummary(deps: ServiceDeps, vm: VmRecord): VmSummary {
  return {
    vm_name: vm.name,
    emoji: vm.emoji,
    status: vm.status,
    tags: vm.tags,
    default_port: vm.defaultPort,
    https_url: httpsUrl(deps, vm.name),
    ...sshAddress(deps, vm),
    ...placement(vm),
  };
}

/** The VM as `ls` lists it; `long` (`ls -l`) adds its limits. */
export function vmListing(deps: ServiceDeps, vm: VmRecord, long = false): VmListing {
  return {
    vm_name: vm.name,
    emoji: vm.emoji,
    status: vm.status,
    tags: vm.tags,
    comment: vm.comment,
    default_port: vm.defaultPort,
    https_url: httpsUrl(deps, vm.name),
    ...sshAddress(deps, vm),
    ...placement(vm),
    created_at: vm.createdAt,
    ...(long
      ? {
          cpus: vm.limits.cpus,
          memory_bytes: vm.limits.memoryBytes,
          disk_bytes: vm.limits.diskBytes,
        }
      : {}),
  };
}
