// Where an integration may forward (SPEC §6): never to the service's own listeners, and never to
// a private address (rules/private-address.ts) unless the operator allows private targets.
// Checked when a target is set (`integrations add`, a seed) and again at each use
// (guarded-lookup.ts), since a name may resolve elsewhere by then.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { commandFailed } from '../../errors.js';
import type { ServiceDeps, ServiceEndpoints } from '../deps.js';
import { broadcastAddressOf, isPrivateAddress } from '../rules/private-address.js';
import { quote } from '../rules/validate.js';
import { refuseOwnListener } from './loop.js';
import { systemLookupTurns } from './lookup-turns.js';

/** What decides whether a target is allowed. */
export interface TargetPolicy {
  endpoints: ServiceEndpoints;
  /** `serve --allow-private-targets`: private addresses allowed (own listeners never are). */
  allowPrivateTargets: boolean;
}

/** Why a private target is refused, and what lifts the rule: the end of both refusals' lines. */
export const PRIVATE_TARGET_REASON =
  "it reaches a loopback, link-local, unspecified, multicast or broadcast address, or this host's own; " +
  'exectl serve --allow-private-targets allows that';

/** The policy of a running service. */
export function targetPolicyOf(deps: Pick<ServiceDeps, 'config' | 'endpoints'>): TargetPolicy {
  return {
    endpoints: deps.endpoints,
    allowPrivateTargets: deps.config.allowPrivateTargets === true,
  };
}

/**
 * The addresses of the host's interfaces now (they may change while the server runs), and the
 * broadcast address of each of their IPv4 networks (a directed broadcast onto the host's link).
 */
export function hostAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) =>
    (list ?? []).flatMap((entry) => {
      const broadcast = entry.cidr === null ? undefined : broadcastAddressOf(entry.cidr);
      return broadcast === undefined ? [entry.address] : [entry.address, broadcast];
    }),
  );
}

/**
 * Names every resolver of this host family answers with loopback, whether or not this host's
 * `/etc/hosts` lists them (Debian's names `ip6-localhost` and `ip6-loopback`; others
 * `localhost6`, `localhost.localdomain`): a name that does not resolve at `integrations add`
 * must not become loopback at use when `/etc/hosts` changes.
 */
const LOOPBACK_NAMES = new Set([
  'ip6-localhost',
  'ip6-loopback',
  'localhost6',
  'localhost6.localdomain6',
  'localhost.localdomain',
]);

/**
 * The addresses `hostname` (a URL's, brackets allowed) stands for: itself when it is an IP
 * literal, loopback for `localhost` and every `*.localhost` (RFC 6761, whatever DNS says) and
 * for the other usual names of loopback (`ip6-localhost`...), else what the system resolver
 * answers. IPv6 zones (`%eth0`) are kept.
 *
 * @throws the resolver's error (`ENOTFOUND`...) when a name does not resolve.
 */
export async function resolveTargetHost(hostname: string): Promise<string[]> {
  const host = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
  if (isIP(host) !== 0) return [host];
  if (host === 'localhost' || host.endsWith('.localhost') || LOOPBACK_NAMES.has(host)) {
    return ['127.0.0.1', '::1'];
  }
  const found = await systemLookupTurns.run(() => lookup(host, { all: true }));
  return found.map((entry) => entry.address);
}

/**
 * Refuses a target (already a valid http(s) URL, see `checkTarget`) that names one of the
 * service's listeners, or, unless the policy allows private targets, that reaches a private
 * address: a literal at once, a name when any address it resolves to is private. A name that
 * does not resolve now is let through: it is checked again at each use.
 *
 * @throws ExectlError 422 `invalid target "http://127.0.0.1:8080": it reaches a loopback, ...`
 *   or `...: it is one of exectl's own listeners`.
 */
export async function refuseForbiddenTarget(target: string, policy: TargetPolicy): Promise<void> {
  const url = new URL(target);
  const addresses = (await resolveTargetHost(url.hostname).catch(() => [])).map((address) =>
    address.replace(/%.*$/, ''),
  );
  const own = hostAddresses();
  refuseOwnListener(url, addresses, policy.endpoints, own);
  if (policy.allowPrivateTargets) return;
  if (addresses.some((address) => isPrivateAddress(address, own))) {
    const shown = quote(`${url.protocol}//${url.host}`);
    throw commandFailed(`invalid target ${shown}: ${PRIVATE_TARGET_REASON}`);
  }
}
