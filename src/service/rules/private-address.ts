// Which addresses an integration may not forward to (SPEC §6) unless the operator starts serve
// with --allow-private-targets: those that reach the server's host itself or the link it sits
// on, where services trust whoever connects from the host, rather than another server.
//
// Private networks (10/8, 172.16/12, 192.168/16, IPv6 unique-local fc00::/7) stay open: they
// are other machines of the operator's network, not this host (the host's own address there is
// refused like any of its addresses), and the SPEC lists only loopback, link-local,
// unspecified and the host's own. The two metadata services outside link-local are refused too.
//
// Multicast and broadcast are refused as well: no one server answers them, and on the host's link
// every listener of a group (or of the subnet) would. 240.0.0.0/4 (reserved, whose last address is
// the limited broadcast 255.255.255.255) goes with them. A directed broadcast is refused where it
// can be told apart: the broadcast address of each of the host's own IPv4 networks, which the
// caller passes among the host's addresses (target-policy.ts adds them); elsewhere `x.y.z.255` may
// as well be an ordinary host of a wider network (10.0.0.255 in a /16), so it stays open.
import { BlockList, isIP } from 'node:net';

const REFUSED = new BlockList();
// "This network": Linux connects 0.0.0.0 (and the rest of 0/8 it accepts) to the host itself.
REFUSED.addSubnet('0.0.0.0', 8, 'ipv4');
REFUSED.addSubnet('127.0.0.0', 8, 'ipv4');
// Link-local, with the cloud metadata service at 169.254.169.254.
REFUSED.addSubnet('169.254.0.0', 16, 'ipv4');
// Alibaba Cloud's metadata service, which sits in the carrier-grade NAT range instead.
REFUSED.addAddress('100.100.100.200', 'ipv4');
// Unspecified `::`, loopback `::1` and the deprecated IPv4-compatible `::a.b.c.d`, which Linux's
// sit tunnel hands to IPv4 (`::127.0.0.1` would be loopback): the whole ::/96.
REFUSED.addSubnet('::', 96, 'ipv6');
REFUSED.addSubnet('fe80::', 10, 'ipv6');
// AWS's metadata service over IPv6.
REFUSED.addAddress('fd00:ec2::254', 'ipv6');
// Multicast, and the reserved block that ends in the limited broadcast 255.255.255.255.
REFUSED.addSubnet('224.0.0.0', 4, 'ipv4');
REFUSED.addSubnet('240.0.0.0', 4, 'ipv4');
REFUSED.addSubnet('ff00::', 8, 'ipv6');

/**
 * Whether a connection to `address` would reach the host itself or its link: loopback,
 * link-local, unspecified (and IPv4-compatible IPv6), a cloud metadata service, multicast,
 * broadcast (255.255.255.255 and all of 240/4), or one of `hostAddresses` (the host's interfaces
 * and the broadcast addresses of their networks, see {@link broadcastAddressOf}). IPv4-mapped IPv6 (`::ffff:127.0.0.1`) counts as the
 * IPv4 address it maps. `address` is an IP literal as node's resolver or a URL's hostname
 * writes it (brackets and an IPv6 zone `%eth0` allowed); anything else counts as private, so
 * a value this rule cannot read is never connected to.
 */
export function isPrivateAddress(address: string, hostAddresses: readonly string[]): boolean {
  const ip = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 0) return true;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (REFUSED.check(ip, type)) return true;
  const embedded = family === 6 ? embeddedIpv4(ip) : undefined;
  if (embedded !== undefined && isPrivateAddress(embedded, hostAddresses)) return true;
  const own = new BlockList();
  for (const host of hostAddresses) {
    const hostIp = host.replace(/%.*$/, '');
    const hostFamily = isIP(hostIp);
    if (hostFamily !== 0) own.addAddress(hostIp, hostFamily === 6 ? 'ipv6' : 'ipv4');
  }
  return own.check(ip, type);
}

/**
 * The broadcast address of the IPv4 network `cidr` (`192.0.2.2/24` → `192.0.2.255`), or
 * undefined for IPv6 (which has none), a /31 or /32 (no broadcast, RFC 3021) or an unreadable
 * value.
 */
export function broadcastAddressOf(cidr: string): string | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  if (match === null || isIP(cidr.slice(0, cidr.indexOf('/'))) !== 4) return undefined;
  const prefix = Number(match[5]);
  if (prefix > 30) return undefined;
  const n = match.slice(1, 5).reduce((acc, part) => acc * 256 + Number(part), 0);
  const hostBits = 2 ** (32 - prefix);
  const broadcast = n - (n % hostBits) + hostBits - 1;
  return [24, 16, 8, 0].map((shift) => Math.floor(broadcast / 2 ** shift) % 256).join('.');
}

/**
 * The IPv4 address a translated IPv6 address carries: NAT64's well-known 64:ff9b::/96 (a
 * gateway connects to the IPv4 address in its last 32 bits) and 6to4's 2002::/16 (bits 16-47),
 * so that `64:ff9b::7f00:1` is judged as 127.0.0.1. `ip` is a valid IPv6 literal.
 */
function embeddedIpv4(ip: string): string | undefined {
  const groups = ipv6Groups(ip);
  const dotted = (high: number, low: number) =>
    [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  const nat64 = [0x64, 0xff9b, 0, 0, 0, 0];
  if (nat64.every((g, i) => groups[i] === g)) return dotted(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return dotted(groups[1]!, groups[2]!);
  return undefined;
}

/** The eight 16-bit groups of a valid IPv6 literal (`::` expanded, a dotted tail read). */
function ipv6Groups(ip: string): number[] {
  const withHexTail = ip.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) =>
    [(Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d)]
      .map((g) => g.toString(16))
      .join(':'),
  );
  const [head = '', tail] = withHexTail.split('::');
  const read = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  if (tail === undefined) return read(head);
  const before = read(head);
  const after = read(tail);
  return [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
}
