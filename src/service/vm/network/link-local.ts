// The one link-local address a machine VM reaches (SPEC §4b): 169.254.169.254, where the server
// itself answers the email gateway. It is put on the VM's own loopback before the VM runs, so
// the VM's packets to it never leave its namespace; every other link-local address (IPv4
// 169.254.0.0/16, IPv6 fe80::/10) is refused to the VM's network helper by the host's wall
// (scripts/network-wall.nft), so none reaches a responder beyond the host.
import { DEFAULT_PATH, runHost } from '../process/index.js';

/** Where the server's email gateway listens inside every machine VM. */
export const GATEWAY_ADDRESS = { host: '169.254.169.254', port: 80 } as const;

/**
 * Adds {@link GATEWAY_ADDRESS} to the loopback of the network namespace open at `netns` (a
 * descriptor of the server's), as host root, with iproute2's `ip`.
 */
export async function addGatewayAddress(nsenter: string, ip: string, netns: number): Promise<void> {
  // The server's own descriptor, named through its /proc: never a pid another process may take.
  const namespace = `--net=/proc/${process.pid}/fd/${netns}`;
  const address = `${GATEWAY_ADDRESS.host}/32`;
  await runHost(nsenter, [namespace, '--', ip, 'address', 'add', address, 'dev', 'lo'], {
    env: { PATH: DEFAULT_PATH },
    stdout: 'ignore',
  });
}
