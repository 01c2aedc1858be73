// Who "one client address" is, for the limits that count per address (SPEC §7: connections, and
// failed token verifications).
import { isIPv6 } from 'node:net';

/**
 * What connections arriving through the VM relay socket count as. The relay is one unix socket
 * for every VM, and Node cannot ask a unix socket for its peer, so VMs share one address.
 */
export const VM_RELAY_ADDRESS = 'vm-relay';

/**
 * The address a connection's limits are counted under: an IPv4 address as it is (an
 * IPv4-mapped IPv6 one unmapped), an IPv6 address by its /64 prefix (a single host is usually
 * given a whole /64, so one address each would be no limit at all), and a connection without a
 * remote address (the VM relay's unix socket) {@link VM_RELAY_ADDRESS}.
 */
export function clientAddressKey(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined) return VM_RELAY_ADDRESS;
  if (!isIPv6(remoteAddress)) return remoteAddress;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
  if (mapped !== null) return mapped[1]!;
  return `${expandIPv6(remoteAddress).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, without leading zeros ('::' expanded). */
function expandIPv6(address: string): string[] {
  // A zone (`fe80::1%eth0`) names the interface, not another host.
  const [head = '', tail] = address.split('%')[0]!.toLowerCase().split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  // A trailing dotted IPv4 part (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) is the last two groups.
  const dotted = right.concat(left).some((g) => g.includes('.')) ? 1 : 0;
  const zeros = Array<string>(8 - left.length - right.length - dotted).fill('0');
  return [...left, ...(tail === undefined ? [] : zeros), ...right].map((g) =>
    g.replace(/^0+(?=.)/, ''),
  );
}
