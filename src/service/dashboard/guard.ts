// Who may talk to the dashboard at all (SPEC §11): a request must name the server itself in
// `Host` (a page of another site whose name was made to resolve to this address, DNS
// rebinding, names its own), and a request that changes anything, or opens the terminal, must
// come from a page of the dashboard itself (`Origin`; a missing one does not match).
import type { IncomingMessage } from 'node:http';
import { ExectlError } from '../../errors.js';
import type { ServiceConfig } from '../config.js';

/** The `Host` values the dashboard answers to, lower case, for the listener at `httpUrl`. */
export function allowedHosts(config: Pick<ServiceConfig, 'domain'>, httpUrl: string): Set<string> {
  const url = new URL(httpUrl);
  const defaultPort = url.protocol === 'https:' ? '443' : '80';
  // URL drops a default port: clients send the bare name then, or rarely the name and port.
  const port = url.port === '' ? defaultPort : url.port;
  const names = new Set([url.hostname, 'localhost', '127.0.0.1', '[::1]', config.domain]);
  const hosts = new Set<string>();
  for (const name of names) {
    // A wildcard listen address is reached through loopback or the domain, never by itself.
    if (name === '0.0.0.0' || name === '[::]') continue;
    hosts.add(`${name}:${port}`.toLowerCase());
    if (port === defaultPort) hosts.add(name.toLowerCase());
  }
  return hosts;
}

/**
 * The origin a sign-in link names: the listener's own, or for a wildcard listen address
 * (`0.0.0.0`, `[::]`), which no browser should be sent to, the `--domain` with its port.
 */
export function dashboardOrigin(config: Pick<ServiceConfig, 'domain'>, httpUrl: string): string {
  const url = new URL(httpUrl);
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = config.domain;
  return url.origin;
}

/** 403 unless `req`'s Host is one of `hosts`. */
export function checkHost(req: IncomingMessage, hosts: ReadonlySet<string>): void {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!hosts.has(host)) {
    throw new ExectlError('forbidden', 'this host name is not the dashboard', {
      hint: 'open the link that `exectl run browser` gives, with the host name it has',
    });
  }
}

/**
 * 403 unless `req` comes from a page of this very dashboard: its `Origin` is the scheme and
 * `Host` it was sent to (the Host already checked). A missing `Origin` does not match.
 */
export function checkOrigin(req: IncomingMessage, tls: boolean): void {
  const expected = `${tls ? 'https' : 'http'}://${req.headers.host ?? ''}`.toLowerCase();
  const origin = req.headers.origin;
  if (origin === undefined || origin.toLowerCase() !== expected) {
    throw new ExectlError('forbidden', 'request from another origin refused', {
      hint: 'use the dashboard page itself',
    });
  }
}
