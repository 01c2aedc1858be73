// Who "one client address" is, for the limits that count per address (SPEC §7: connections, and
// failed token verifications).
import { isIPv6 } from 'node:net';
import type { VmOrigin } from '../vm/contract.js';

/** A connection as the per-client limits see it: an accepted socket, or TLS over one. */
export interface ClientSocket {
  readonly remoteAddress?: string | undefined;
}

/**
 * The connections machine VMs opened to the server's listeners inside their own network, by
 * the VM that opened them. Their remote address is the VM's own loopback, which says nothing:
 * every VM has the same one, and so does the host.
 */
const vmConnections = new WeakMap<ClientSocket, VmOrigin>();

/** The client key of the VM with id `vmId`: its connections' limits count under it. */
export function vmClientKey(vmId: number): string {
  return `vm:${vmId}`;
}

/** Records that `socket` was opened by the VM of `origin`. */
export function markVmConnection(socket: ClientSocket, origin: VmOrigin): void {
  vmConnections.set(socket, origin);
}

/**
 * The VM that opened `connection` inside its own network, or undefined for any other (the
 * host's, a VM's that shares the host's network). A TLS socket is asked through the socket it
 * runs over (Node's `_parent`), which is the one the listener took.
 */
export function vmOriginOf(connection: ClientSocket): VmOrigin | undefined {
  const raw = (connection as { _parent?: ClientSocket })._parent;
  return vmConnections.get(connection) ?? (raw === undefined ? undefined : vmConnections.get(raw));
}

/**
 * The account whose VM opened `connection` (`account:<id>`), for the cap on all connections
 * of one account's VMs (SPEC §7); undefined for a connection no VM opened.
 */
export function accountKeyOf(connection: ClientSocket): string | undefined {
  const origin = vmOriginOf(connection);
  return origin === undefined ? undefined : `account:${origin.accountId}`;
}

/**
 * Who a connection's client is, for every limit that counts per client (connections, failed
 * verifications, their pace) and for logs: its VM's key ({@link vmClientKey}) when a VM opened
 * it ({@link vmOriginOf}), else its address's ({@link clientAddressKey}).
 */
export function clientKeyOf(connection: ClientSocket): string {
  const vm = vmOriginOf(connection);
  return vm === undefined ? clientAddressKey(connection.remoteAddress) : vmClientKey(vm.vmId);
}

/**
 * The address a connection's limits are counted under: an IPv4 address as it is (an
 * IPv4-mapped IPv6 one unmapped), an IPv6 address by its /64 prefix (a single host is usually
 * given a whole /64, so one address each would be no limit at all), and a connection without a
 * remote address (a unix socket's) `local`.
 */
export function clientAddressKey(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined) return 'local';
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
