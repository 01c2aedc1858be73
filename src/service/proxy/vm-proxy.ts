// The VM proxy (SPEC §6): a request for `<vm>.<domain>` reaches the VM's server on its default
// port once proxy-auth.ts lets it in, with the headers of proxy-headers.ts. The listener hands
// it every new connection (serveConnection): one whose first request names a VM is served here
// on the raw socket (proxy-connection.ts: llhttp framing, every request checked in turn), any
// other goes back to node:http. One log line per request, via `proxy`, never the token.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import { ExectlError } from '../../errors.js';
import { dialectsOf, vmDomainOf } from '../config.js';
import { servicePorts, type ServiceDeps } from '../deps.js';
import { loopOfRaw, type LoopMarks } from '../integrations/loop.js';
import { newLogEntry, runLogged, type RequestLogEntry } from '../request-log.js';
import type { RateLimiter } from '../rules/rate-limit.js';
import type { ConnectionLimits } from '../http/connection-caps.js';
import { errorAnswerBytes, refusalBytes, sendError } from '../http/error-funnel.js';
import { heldBack } from '../http/hold-back.js';
import type { ClientSide, ProxiedRequest } from './proxied-request.js';
import { AdmissionMemo } from './admission-memo.js';
import { admitToVm, type ProxyGate } from './proxy-auth.js';
import { serveConnection } from './proxy-connection.js';
import { ProxyConnections } from './proxy-connections.js';
import { proxyCredential } from './proxy-credential.js';
import { exchange, type VmTarget } from './proxy-exchange.js';
import { headersToVm } from './proxy-headers.js';
import { routeOfHost } from './proxy-host.js';
import { admittedByShareCookie, redeemShareLink, shareParameter } from './share-link.js';
import type { TokenAuthenticator } from '../http/token-auth.js';
import { repeatedSingleton } from '../http/singleton-headers.js';
import { joinTunnel, refuseOnSocket } from './upgrade-tunnel.js';
import { UpstreamPool } from './upstream-pool.js';

interface VmProxyOptions {
  deps: Pick<ServiceDeps, 'store' | 'config' | 'endpoints' | 'machines'>;
  /** The authenticator /exec uses (its verification cache serves both). */
  auth: TokenAuthenticator;
  /** The per-key buckets /exec uses; null when rate limiting is off. */
  rateLimiter: RateLimiter | null;
  /**
   * The service's loop marks (integrations/loop.ts): a request carrying either came back
   * through this service (508); the proxy's own goes with every request into a VM.
   */
  loopMarks: LoopMarks;
  /** The listener's idle and header timeouts, which its proxy connections keep too. */
  limits: Pick<ConnectionLimits, 'headersTimeoutMs' | 'keepAliveTimeoutMs'>;
}

export interface VmProxy {
  /**
   * Serves a new connection of the HTTP listener when its first request is for a VM; otherwise
   * gives it to `handBack` (node:http) with the bytes read from it so far.
   */
  serveConnection(socket: Socket, handBack: (socket: Socket, read: Buffer[]) => void): void;
  /** The VM label a request node:http serves is addressed to, or null when it is the service's. */
  vmLabel(req: IncomingMessage): string | null;
  /** Answers a request for a VM that came on a connection of the service's own endpoints. */
  misdirected(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** node:http's `upgrade` handler: refuses them all (its connections are the service's). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Ends idle connections now, the others once their answer is written (or after `graceMs`). */
  closeConnections(graceMs: number): void;
  /** Closes the idle connections kept to VMs' servers (at shutdown). */
  close(): void;
}

/** Builds the VM proxy of the HTTP listener. */
export function createVmProxy(options: VmProxyOptions): VmProxy {
  const { store, config, machines } = options.deps;
  const gate: ProxyGate = {
    store,
    auth: options.auth,
    rateLimiter: options.rateLimiter,
    vmDomain: vmDomainOf(config),
    memo: new AdmissionMemo(),
  };
  const dialects = dialectsOf(config);
  const pool = new UpstreamPool((vm, port) => machines.connect(vm, port));
  const ownPorts = ownPortsOf(options.deps.endpoints);
  const connections = new ProxyConnections(options.limits);
  const vmOfDomain = (name: string) => store.vmNameForDomain(name);
  const routeOf = (host: string | undefined) => routeOfHost(host, gate.vmDomain, vmOfDomain);
  // The Host of a connection's requests is the same every time: its label is worked out once
  // while the store is unchanged (a custom domain may come or go).
  let lastHost: string | undefined;
  let lastLabel: string | null = null;
  let lastGeneration = -1;
  const labelOf = (host: string | undefined): string | null => {
    const generation = store.dataGeneration();
    if (host !== lastHost || host === undefined || generation !== lastGeneration) {
      lastLabel = routeOf(host);
      lastHost = host;
      lastGeneration = generation;
    }
    return lastLabel;
  };

  /**
   * The VM and visitor of a request let in: by its token; else by a share cookie of the VM
   * (an anonymous visit, share-link.ts); else as a request without a token (401 on a private VM).
   */
  const admission = async (req: ProxiedRequest, token: string | null) => {
    if (token === null) {
      const vm = store.getVmByName(req.label);
      if (vm !== undefined && admittedByShareCookie(store, vm, req.headers.cookie)) {
        return { vm, visitor: null };
      }
    }
    const admitted = heldBack(() => admitToVm(gate, req.label, token, req.socket));
    return admitted instanceof Promise ? await admitted : admitted;
  };

  /** Admits the request and says where it goes and with which headers. */
  const target = async (req: ProxiedRequest, entry: RequestLogEntry): Promise<VmTarget> => {
    const credential = proxyCredential(req.headers, dialects);
    const { vm, visitor } = await admission(req, credential.token);
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
    const tunnel = req.head.upgrade;
    const headers = headersToVm(req, {
      visitor,
      dropAuthorization,
      tunnel,
      dialects,
      loopMark: options.loopMarks.proxy,
    });
    return { vm, port: vm.defaultPort, headers, tunnel };
  };

  const serve = (client: ClientSide, req: ProxiedRequest): Promise<void> => {
    const entry = newLogEntry('proxy', `${req.method} ${req.label || '-'}`);
    const work = async () => {
      if (req.label === '' || req.method === 'CONNECT') {
        req.head.keepAlive = false;
        throw req.label === '' ? misdirected() : connectRefused();
      }
      const loop = loopOfRaw(req.rawHeaders, options.loopMarks);
      if (loop !== null) throw loop;
      const repeated = repeatedSingleton(req);
      if (repeated !== null) throw repeated;
      const share = shareParameter(req.url);
      if (share !== null) {
        // Answered here, never forwarded: the link's token is the proxy's (share-link.ts).
        if (req.hasBody) req.head.keepAlive = false;
        const secure = (req.socket as Partial<TLSSocket>).encrypted === true;
        const vm = store.getVmByName(req.label);
        client.write(redeemShareLink(store, vm, share, secure, client.keepAlive(req)));
        return 302;
      }
      const to = await target(req, entry);
      const expect = req.headers.expect;
      if (expect !== undefined) {
        // node:http's answer to an expectation it does not know.
        if (!/^100-continue$/i.test(expect)) {
          req.head.keepAlive = false;
          client.write(refusalBytes(417));
          return 417;
        }
        // Asked to confirm before the body is sent: only now, once the request is let in.
        if (!req.complete && req.head.versionMinor > 0)
          client.write('HTTP/1.1 100 Continue\r\n\r\n');
      }
      return exchange(client, req, to, pool);
    };
    return runLogged(config.log, entry, work, (err) => {
      const keepAlive = client.keepAlive(req);
      if (!keepAlive) req.head.keepAlive = false;
      const answer = errorAnswerBytes(err, { 'X-Request-Id': entry.requestId }, keepAlive);
      client.write(answer.bytes);
      return answer.outcome;
    });
  };

  return {
    serveConnection(socket, handBack) {
      const connection = serveConnection(socket, {
        vmLabel: labelOf,
        handBack: (given, read) => {
          connections.delete(connection);
          handBack(given, read);
        },
        serve,
        tunnel: joinTunnel,
      });
      connections.add(connection);
    },

    vmLabel: (req) => routeOf(req.headers.host),

    misdirected: (req, res) =>
      runLogged(
        config.log,
        newLogEntry('proxy', `${req.method} -`),
        async () => {
          res.shouldKeepAlive = false;
          throw misdirected();
        },
        (err) => sendError(res, err),
      ),

    upgrade(req, socket) {
      // A client resetting the connection must never become an unhandled error.
      socket.on('error', () => socket.destroy());
      const forVm = routeOf(req.headers.host) !== null;
      const entry = forVm ? newLogEntry('proxy', `${req.method} -`) : refusedUpgradeEntry(req);
      void runLogged(
        config.log,
        entry,
        async () => {
          throw forVm ? misdirected() : upgradeRefused();
        },
        (err) => refuseOnSocket(req, socket, err, entry.requestId),
      );
    },

    closeConnections: (graceMs) => connections.closeAll(graceMs),

    close: () => {
      connections.stop();
      pool.close();
    },
  };
}

/**
 * A request whose Host is not the kind its connection serves: the service's own endpoints and
 * VMs' addresses never share a connection (see docs/behaviour.md).
 */
function misdirected(): ExectlError {
  return new ExectlError(
    'bad_request',
    "this connection serves another host: a VM's address and exectl's own endpoints never share one",
    { hint: 'send this request on a new connection' },
  );
}

/** CONNECT asks for a tunnel to anywhere: a VM's address is no forward proxy. */
function connectRefused(): ExectlError {
  return new ExectlError('bad_request', 'CONNECT is not available on VM addresses', {
    hint: "send the request to the VM's address itself",
  });
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

/** Only VM servers speak WebSocket, and node:http serves only the service's own connections. */
function upgradeRefused(): ExectlError {
  return new ExectlError('bad_request', 'protocol upgrade is only available on VM addresses', {
    hint: 'send the request without an Upgrade header',
  });
}
