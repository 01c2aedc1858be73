// Which addresses an integration may not forward to (SPEC §6) unless the operator starts serve
// with --allow-private-targets: those that reach the server's host itself or the link it sits
// on, where services trust whoever connects from the host, rather than another server.
//
// Private networks (10/8, 172.16/12, 192.168/16, IPv6 unique-local fc00::/7) stay open: they
// are other machines of the operator's network, not this host (the host's own address there is
// refused like any of its addresses), and the SPEC lists only loopback, link-local,
// unspecified and the host's own. The two metadata services outside link-local are refused too.
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

/**
 * Whether a connection to `address` would reach the host itself or its link: loopback,
 * link-local, unspecified (and IPv4-compatible IPv6), a cloud metadata service, or one of
 * `hostAddresses` (the host's interfaces). IPv4-mapped IPv6 (`::ffff:127.0.0.1`) counts as the
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
  const own = new BlockList();
  for (const host of hostAddresses) {
    const hostIp = host.replace(/%.*$/, '');
    const hostFamily = isIP(hostIp);
    if (hostFamily !== 0) own.addAddress(hostIp, hostFamily === 6 ? 'ipv6' : 'ipv4');
  }
  return own.check(ip, type);
}
