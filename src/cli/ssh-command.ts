// The OpenSSH command line that opens a VM's own SSH server (SPEC §6a), from the `ssh_host`,
// `ssh_port` and `ssh_user` of `ls` and `new`: what hints name where /exec's 30 s limit or its
// missing terminal is in the way.

/** A VM's SSH destination as the server reports it. */
export interface SshAddress {
  host: string;
  port: number;
  user: string;
}

/** What a host name, user and port from the network may be before a hint repeats them. */
const SAFE_PART = /^[A-Za-z0-9.:[\]_+-]{1,255}$/;

/** `ssh -p 7022 vm+web@localhost` (no `-p` for port 22). */
export function sshCommandFor(dest: SshAddress): string {
  return `ssh ${dest.port === 22 ? '' : `-p ${dest.port} `}${dest.user}@${dest.host}`;
}

/**
 * The SSH address in an answer (`new`'s, an `ls` entry), when all three fields are there and
 * plain (the answer comes from the network and goes to a terminal); else undefined.
 */
export function sshAddressIn(answer: {
  ssh_host?: unknown;
  ssh_port?: unknown;
  ssh_user?: unknown;
}): SshAddress | undefined {
  const { ssh_host: host, ssh_port: port, ssh_user: user } = answer;
  if (typeof host !== 'string' || typeof user !== 'string' || typeof port !== 'number')
    return undefined;
  if (!SAFE_PART.test(host) || !SAFE_PART.test(user)) return undefined;
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host, port, user };
}
