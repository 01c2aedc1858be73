// The OpenSSH `Host` blocks of `exectl ssh-config` (SPEC §6a "Host names route SSH"): one per VM,
// named `<vm>.<vm-domain>`, so that `ssh`, `scp`, `sftp` and `rsync -e ssh` reach it with no
// flags. Every value comes from the server's answer and lands in the user's ssh config, where a
// newline or a directive of a hostile server would run commands (`ProxyCommand`, `Match exec`):
// each is checked against a strict pattern, and a VM with any other value is left out.

/** The markers between which `--write` keeps its blocks in `~/.ssh/config`. */
export const BEGIN_MARKER = '# exectl ssh-config begin';
export const END_MARKER = '# exectl ssh-config end';

/** One VM of `ls --json`, as the server gave it (unchecked). */
export interface ListedVm {
  vm_name: unknown;
  https_url: unknown;
  ssh_host: unknown;
  ssh_port: unknown;
  ssh_user: unknown;
}

/** A VM's checked SSH destination. */
export interface VmHost {
  /** `web.exe.xyz`: the `Host` name. */
  alias: string;
  host: string;
  port: number;
  user: string;
}

/** SPEC §3: a VM name is a DNS label. */
const VM_NAME = /^[a-z][a-z0-9-]{0,61}[a-z0-9]$/;
/** A DNS name of labels, as a VM domain is. */
const DOMAIN =
  /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
/** A host name, an IPv4 address or a bare IPv6 address: nothing ssh_config would split. */
const HOST = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9.:-]*[A-Za-z0-9])?$/;
/** `root`, `vm+web`: a user name without spaces, quotes or `%` (ssh_config's tokens). */
const USER = /^[A-Za-z0-9_][A-Za-z0-9._+-]{0,63}$/;
/** A path written into the config: absolute, no quote, no newline, no `%` token. */
const PATH = /^\/[^"\n\r%\0]*$/;

/**
 * The VM's destination when every value is one ssh_config reads as a plain value, else the
 * reason it is left out. The VM domain is the https_url's host without the VM's name.
 */
export function vmHost(vm: ListedVm): VmHost | { skipped: string } {
  const name = typeof vm.vm_name === 'string' && VM_NAME.test(vm.vm_name) ? vm.vm_name : undefined;
  if (name === undefined) return { skipped: 'a VM name that is not a DNS label' };
  if (vm.ssh_host === null) return { skipped: `vm "${name}": the server's SSH listener is off` };
  const domain = vmDomain(name, vm.https_url);
  if (domain === undefined) return { skipped: `vm "${name}": its URL is not <vm>.<domain>` };
  const { ssh_host: host, ssh_port: port, ssh_user: user } = vm;
  if (typeof host !== 'string' || !HOST.test(host))
    return { skipped: `vm "${name}": ssh_host is not a host name or address` };
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
    return { skipped: `vm "${name}": ssh_port is not a port` };
  if (typeof user !== 'string' || !USER.test(user))
    return { skipped: `vm "${name}": ssh_user is not a plain user name` };
  return { alias: `${name}.${domain}`, host, port, user };
}

function vmDomain(name: string, url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return undefined;
  }
  const domain = hostname.startsWith(`${name}.`) ? hostname.slice(name.length + 1) : '';
  return DOMAIN.test(domain) ? domain : undefined;
}

/** Where the blocks point, checked by {@link renderBlocks}. */
export interface BlockFiles {
  /** exectl's known-hosts file, where the server's host key is pinned. */
  knownHosts: string;
  /** The key file to sign in with (`--key`, EXECTL_KEY, the profile's), if one is set. */
  identityFile: string | undefined;
}

/**
 * The marker lines and, between them, a `Host` block per VM, host keys checked against
 * `files.knownHosts` only (`StrictHostKeyChecking yes`: a changed key is refused, never asked).
 *
 * @throws Error when a path cannot be written into ssh_config as a plain value.
 */
export function renderBlocks(hosts: readonly VmHost[], files: BlockFiles): string {
  for (const path of [files.knownHosts, files.identityFile]) {
    if (path !== undefined && !PATH.test(path))
      throw new Error(`${JSON.stringify(path)} cannot be named in an ssh config`);
  }
  const lines = [BEGIN_MARKER, '# made by `exectl ssh-config`; run it again after new, rm or cp'];
  for (const h of hosts) {
    lines.push(
      `Host ${h.alias}`,
      `    HostName ${h.host}`,
      `    Port ${h.port}`,
      `    User ${h.user}`,
      `    UserKnownHostsFile ${quotedPath(files.knownHosts)}`,
      '    StrictHostKeyChecking yes',
      ...(files.identityFile === undefined
        ? []
        : [`    IdentityFile ${quotedPath(files.identityFile)}`, '    IdentitiesOnly yes']),
    );
  }
  lines.push(END_MARKER);
  return `${lines.join('\n')}\n`;
}

/** How known_hosts names `host:port`: bare on port 22, else `[host]:port`. */
export function knownHostName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function quotedPath(path: string): string {
  return /\s/.test(path) ? `"${path}"` : path;
}
