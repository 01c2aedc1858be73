// Integration loops (SPEC §6): an integration forwards to its target only, never back to one
// of the service's own listeners. There, a request would circle through the reflection
// listener for ever, or reach /exec and other VMs' addresses from inside a VM. A target that
// names a listener is refused when it is set; one that gets past that (a name that resolves
// differently later, listeners that moved since) is caught by the mark every forwarded request
// carries, which the listeners refuse.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { commandFailed, ExectlError } from '../../errors.js';
import { quote } from '../rules/validate.js';
import { servicePorts, type ServiceEndpoints } from '../deps.js';

/** The request header holding the mark of the service whose integration forwarded it. */
export const LOOP_HEADER = 'x-exectl-hop';

/**
 * The marks of one running service, fresh and random (another exectl must not take them for
 * its own): `integration` on every request its integrations forward, `proxy` on every request
 * its VM proxy sends into a VM. A VM that sends a proxied request back to the server (its port
 * forwarded to the server's listener inside it, byte for byte) sends the mark back with it.
 */
export interface LoopMarks {
  integration: string;
  proxy: string;
}

export function newLoopMarks(): LoopMarks {
  const mark = () => randomBytes(12).toString('base64url');
  return { integration: mark(), proxy: mark() };
}

/** Whether `req` carries `mark` (see {@link LoopMarks}). */
export function cameBack(req: IncomingMessage, mark: string): boolean {
  return req.headersDistinct[LOOP_HEADER]?.includes(mark) === true;
}

/** {@link cameBack} for a raw header list [name, value...] (the VM proxy's requests). */
export function carriesMark(rawHeaders: readonly string[], mark: string): boolean {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i + 1] === mark && rawHeaders[i]!.toLowerCase() === LOOP_HEADER) return true;
  }
  return false;
}

/** {@link loopOf} for a raw header list [name, value...] (the VM proxy's requests). */
export function loopOfRaw(rawHeaders: readonly string[], marks: LoopMarks): ExectlError | null {
  if (carriesMark(rawHeaders, marks.integration)) return integrationLoop();
  if (carriesMark(rawHeaders, marks.proxy)) return proxyLoop();
  return null;
}

/** The 508 of a request that came back through this service, or null when it did not. */
export function loopOf(req: IncomingMessage, marks: LoopMarks): ExectlError | null {
  if (cameBack(req, marks.integration)) return integrationLoop();
  if (cameBack(req, marks.proxy)) return proxyLoop();
  return null;
}

/**
 * The 508 for a request the VM proxy sent into a VM that came back from it (SPEC §6), however
 * many VMs it went through: each hop carries the mark on.
 */
export function proxyLoop(): ExectlError {
  return new ExectlError('integration_loop', 'proxy loop', {
    hint: 'the VM sent a request of the VM proxy back to exectl: forward its port elsewhere',
  });
}

/** The 508 for a request that {@link cameBack}. */
export function integrationLoop(): ExectlError {
  return new ExectlError('integration_loop', 'integration loop', {
    hint: "point the integration's target at another server than exectl itself",
  });
}

/**
 * Refuses an integration target on a port of the service's listeners (HTTP, reflection, SSH)
 * at an address that reaches them: loopback, unspecified (`0.0.0.0`, `::`), a listener's own
 * address, or any of the host's addresses when a listener is on a wildcard one. `addresses`
 * are the target's host resolved (see target-policy.ts), so every spelling is caught.
 *
 * @throws ExectlError 422 `invalid target "http://127.0.0.1:7070": it is one of exectl's own listeners`
 */
export function refuseOwnListener(
  url: URL,
  addresses: readonly string[],
  endpoints: ServiceEndpoints,
  hostAddresses: readonly string[],
): void {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (!servicePorts(endpoints).has(port)) return;
  const reaching = reachingAddresses(endpoints, hostAddresses);
  for (const address of addresses) {
    if (reaching.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4')) {
      const shown = quote(`${url.protocol}//${url.host}`);
      throw commandFailed(`invalid target ${shown}: it is one of exectl's own listeners`);
    }
  }
}

/** Addresses at which a connection reaches the service's listeners. */
function reachingAddresses(endpoints: ServiceEndpoints, hostAddresses: readonly string[]) {
  const list = new BlockList();
  const add = (host: string) => {
    const family = isIP(host);
    if (family !== 0) list.addAddress(host, family === 6 ? 'ipv6' : 'ipv4');
  };
  list.addSubnet('127.0.0.0', 8, 'ipv4');
  list.addSubnet('0.0.0.0', 8, 'ipv4');
  list.addAddress('::1', 'ipv6');
  list.addAddress('::', 'ipv6');
  const hosts = [endpoints.http, endpoints.reflection]
    .filter((base) => base !== '')
    .map((base) => new URL(base).hostname);
  if (endpoints.ssh !== null) hosts.push(endpoints.ssh.host);
  for (const host of hosts.map((h) => h.replace(/^\[(.*)\]$/, '$1'))) {
    add(host);
    // A listener on a wildcard address answers at every address of the host.
    if (host === '0.0.0.0' || host === '::') hostAddresses.forEach(add);
  }
  return list;
}
