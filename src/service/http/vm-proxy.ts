// The VM proxy (SPEC §6): a request for `<vm>.<domain>` reaches the VM's server on its default
// port once proxy-auth.ts lets it in, with the headers of proxy-headers.ts; upgrades (WebSocket)
// go through upgrade-tunnel.ts. One log line per request, via `proxy`, never the token.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ExectlError } from '../../errors.js';
import { servicePorts, type ServiceDeps } from '../deps.js';
import { newLogEntry, runLogged, type RequestLogEntry } from '../request-log.js';
import { sendError } from './error-funnel.js';
import { heldBack } from './hold-back.js';
import { admitToVm, type ProxyGate } from './proxy-auth.js';
import { proxyCredential } from './proxy-credential.js';
import { cameBack, proxyLoop } from '../integrations/loop.js';
import { headersToVm } from './proxy-headers.js';
import { vmLabelFromHost } from './proxy-host.js';
import { createUpstreamAgent, relayToVm } from './proxy-relay.js';
import type { RateLimiter } from '../rules/rate-limit.js';
import type { TokenAuthenticator } from './token-auth.js';
import { refuseOnSocket, tunnelToVm } from './upgrade-tunnel.js';

interface VmProxyOptions {
  deps: Pick<ServiceDeps, 'store' | 'config' | 'endpoints' | 'machines'>;
  /** The authenticator /exec uses (its verification cache serves both). */
  auth: TokenAuthenticator;
  /** The per-key buckets /exec uses; null when rate limiting is off. */
  rateLimiter: RateLimiter | null;
  /**
   * The service's proxy loop mark (integrations/loop.ts), sent with every request into a VM: a
   * VM that sends one back (its port forwarded to the server) is refused 508.
   */
  loopMark: string;
}

interface VmProxy {
  /** The VM label a request is addressed to by its Host, or null when it is for the service. */
  vmLabel(req: IncomingMessage): string | null;
  /** Answers a request addressed to the VM `label` (found by {@link VmProxy.vmLabel}). */
  forward(req: IncomingMessage, res: ServerResponse, label: string): Promise<void>;
  /**
   * The HTTP listener's `upgrade` handler: tunnels upgrades addressed to a VM and refuses every
   * other one with 400 (only VM servers speak WebSocket).
   */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes the idle connections kept to VMs' servers (at shutdown). */
  close(): void;
}

/** Builds the VM proxy of the HTTP listener. */
export function createVmProxy(options: VmProxyOptions): VmProxy {
  const { store, config } = options.deps;
  const gate: ProxyGate = {
    store,
    auth: options.auth,
    rateLimiter: options.rateLimiter,
    domain: config.domain,
  };
  const upstreams = createUpstreamAgent();
  const ownPorts = ownPortsOf(options.deps.endpoints);

  /** Admits the request and says where it goes and with which headers. */
  const target = async (
    req: IncomingMessage,
    label: string,
    entry: RequestLogEntry,
    tunnel: boolean,
  ) => {
    const credential = proxyCredential(req.headers);
    const { vm, visitor } = await heldBack(() =>
      admitToVm(gate, label, credential.token, req.socket),
    );
    if (visitor !== null) entry.fingerprint = visitor.principal.keyFingerprint;
    const { dropAuthorization } = credential;
    // `share port` refuses these, but a seed or an older record may still name one.
    if (ownPorts().has(vm.defaultPort)) {
      throw new ExectlError(
        'bad_gateway',
        `vm "${vm.name}" forwards to port ${vm.defaultPort}, one of exectl's own listeners`,
        { hint: `choose another port with "share port ${vm.name} <port>"` },
      );
    }
    if (vm.status === 'paused') {
      throw new ExectlError('unavailable', `vm "${vm.name}" is paused`, {
        hint: `its owner resumes it with "resume ${vm.name}"`,
      });
    }
    return {
      vmName: vm.name,
      vmId: vm.id,
      port: vm.defaultPort,
      // Inside the VM's own network, never a port of the host.
      connect: () => options.deps.machines.connect(vm, vm.defaultPort),
      headers: headersToVm(req, { visitor, dropAuthorization, tunnel, loopMark: options.loopMark }),
    };
  };

  return {
    vmLabel: (req) => vmLabelFromHost(req.headers.host, config.domain),

    forward: (req, res, label) => {
      const entry = newLogEntry('proxy', `${req.method} ${label}`);
      const work = async () => {
        const to = await target(req, label, entry, false);
        // Asked to confirm before the body is sent: only now, once the request is let in.
        if (/^100-continue$/i.test(req.headers.expect ?? '')) res.writeContinue();
        return relayToVm(req, res, to, upstreams);
      };
      return runLogged(config.log, entry, work, (err) => {
        if (!res.headersSent) res.setHeader('X-Request-Id', entry.requestId);
        return sendError(res, err);
      });
    },

    upgrade(req, socket, head) {
      // A client resetting the connection must never become an unhandled error.
      socket.on('error', () => socket.destroy());
      const label = vmLabelFromHost(req.headers.host, config.domain);
      const entry =
        label === null ? refusedUpgradeEntry(req) : newLogEntry('proxy', `${req.method} ${label}`);
      const work = async () => {
        if (label === null) throw upgradeRefused();
        // Upgrades skip the listener's route, where every other request is checked.
        if (cameBack(req, options.loopMark)) throw proxyLoop();
        return tunnelToVm(req, socket, head, await target(req, label, entry, true));
      };
      void runLogged(config.log, entry, work, (err) =>
        refuseOnSocket(req, socket, err, entry.requestId),
      );
    },

    close: () => upstreams.destroy(),
  };
}

/**
 * The ports of the server's own listeners, computed again only when an endpoint changed (the
 * SSH front end starts after the HTTP listener): parsing URLs is no work for every request.
 */
function ownPortsOf(endpoints: ServiceDeps['endpoints']): () => Set<number> {
  let seen: [string, string, unknown] | null = null;
  let ports = new Set<number>();
  return () => {
    if (
      seen === null ||
      seen[0] !== endpoints.http ||
      seen[1] !== endpoints.reflection ||
      seen[2] !== endpoints.ssh
    ) {
      seen = [endpoints.http, endpoints.reflection, endpoints.ssh];
      ports = servicePorts(endpoints);
    }
    return ports;
  };
}

/**
 * The log entry of an upgrade to the service itself, refused: routine noise (a browser or a
 * tool probing for a WebSocket), at debug level, with its path and Host to tell who sent it.
 */
function refusedUpgradeEntry(req: IncomingMessage): RequestLogEntry {
  const path = (req.url ?? '/').split('?')[0]!.slice(0, PATH_SHOWN);
  const entry = newLogEntry('http', `${req.method} ${path}`);
  entry.routine = { host: req.headers.host ?? '-' };
  return entry;
}

/** The longest path of a refused upgrade a log line repeats. */
const PATH_SHOWN = 200;

/**
 * Node hands every upgrade request of the listener to the proxy, /exec's too; only VM servers
 * speak WebSocket, and the request cannot go back to the plain handler once Node let go of it.
 */
function upgradeRefused(): ExectlError {
  return new ExectlError('bad_request', 'protocol upgrade is only available on VM addresses', {
    hint: 'send the request without an Upgrade header',
  });
}
