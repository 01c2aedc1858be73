// The JSON shapes of a VM in command answers (SPEC §3), and the addresses users reach it at.
import { ALL_DIALECTS } from '../../dialects.js';
import { vmDomainOf } from '../config.js';
import type { ServiceDeps } from '../deps.js';
import type { VmRecord } from '../store/index.js';
import type { VmListing, VmSummary } from '../../text-views/vms.js';

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

/**
 * How to run a command in the VM over the SSH front end: the start of a shell command line to
 * which the user appends the VM command, e.g. `ssh -p 7022 127.0.0.1 ssh web` + ` uname -a`.
 * null when the SSH listener is off. A wildcard listen address is replaced by the domain (see
 * {@link ownHostName}).
 */
function sshDest(deps: ServiceDeps, vmName: string): string | null {
  const ssh = deps.endpoints.ssh;
  if (ssh === null) return null;
  const host = WILDCARD_HOSTS.has(ssh.host) ? ownHostName(deps.config.domain) : ssh.host;
  return `ssh -p ${ssh.port} ${host} ssh ${vmName}`;
}

/**
 * A host name of this server for `domain`: the domain itself, except the real service's own
 * (`exe.dev`, the default of `--compat exe.dev`, SPEC §12), which would send the user there:
 * `localhost` then.
 */
function ownHostName(domain: string): string {
  return ALL_DIALECTS.some((d) => d.compat !== null && d.domain === domain) ? 'localhost' : domain;
}

export function vmSummary(deps: ServiceDeps, vm: VmRecord): VmSummary {
  return {
    vm_name: vm.name,
    emoji: vm.emoji,
    status: vm.status,
    tags: vm.tags,
    default_port: vm.defaultPort,
    https_url: httpsUrl(deps, vm.name),
    ssh_dest: sshDest(deps, vm.name),
  };
}

export function vmListing(deps: ServiceDeps, vm: VmRecord): VmListing {
  return {
    vm_name: vm.name,
    emoji: vm.emoji,
    status: vm.status,
    tags: vm.tags,
    comment: vm.comment,
    default_port: vm.defaultPort,
    https_url: httpsUrl(deps, vm.name),
    ssh_dest: sshDest(deps, vm.name),
    created_at: vm.createdAt,
  };
}
