import { createServer, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import ssh2, { type Connection } from 'ssh2';
import { ExectlError } from '../../errors.js';
import type { ListenAddress, LogSink } from '../config.js';
import type { ServiceDeps } from '../deps.js';
import type { CommandRegistry } from '../dispatch/registry.js';
import type { RateLimiter } from '../rules/rate-limit.js';
import { clientAddressKey } from '../rules/client-address.js';
import type { ConnectionWire } from './channel-guard.js';
import { serveConnection, type AddressedVm } from './connection.js';
import {
  ConnectionGate,
  DEFAULT_CONNECTION_LIMITS,
  type ConnectionLimits,
} from './connection-limits.js';
import { loadOrCreateHostKey } from './host-key.js';
import { Cancellation } from './lobby/run-line.js';
import { SocketBacklog } from './socket-backlog.js';
import type { VmAddressListeners } from './vm-address-listeners.js';

interface SshFrontEndOptions {
  deps: ServiceDeps;
  registry: CommandRegistry<ServiceDeps>;
  /** `--ssh-listen`; port 0 picks a free port. */
  listen: ListenAddress;
  /** The host key file, e.g. `<data>/ssh_host_ed25519_key`; created on first start. */
  hostKeyPath: string;
  /** Shared with the HTTP front end: one bucket per key whichever way it calls. */
  rateLimiter: RateLimiter | null;
  log: LogSink;
  /** Connection caps and the login grace; {@link DEFAULT_CONNECTION_LIMITS} unless given. */
  limits?: Partial<ConnectionLimits>;
  /** The VMs' own addresses, served once the listener is bound (SPEC §6a). */
  vmAddresses: VmAddressListeners;
}

export interface SshFrontEnd {
  /** Where it listens (the real port when asked for port 0). */
  address: { host: string; port: number };
  /** `SHA256:...` of the host key, as `ssh` shows it on first connection. */
  hostKeyFingerprint: string;
  /** Stops accepting, cancels running commands, ends every connection. Safe to call twice. */
  close(): Promise<void>;
}

/** How long clients get to hang up, at each step of closing, before they are cut off. */
const DISCONNECT_GRACE_MS = 2000;

/**
 * Starts the SSH front end (SPEC §7): the same commands as /exec over a real SSH server,
 * for registered keys only — one-shot `ssh host <command line>` and an interactive REPL.
 * Loads the host key from `hostKeyPath`, creating it on first start.
 *
 * @throws ExectlError `usage` when the address cannot be listened on (in use, not local).
 */
export async function startSshFrontEnd(options: SshFrontEndOptions): Promise<SshFrontEnd> {
  const hostKey = await loadOrCreateHostKey(options.hostKeyPath);
  const shutdown = new AbortController();
  const running = new Set<Promise<unknown>>();
  const connections = new Set<Connection>();
  let everyoneGone!: () => void;
  const allDisconnected = new Promise<void>((resolve) => (everyoneGone = resolve));
  const sockets = new Set<Socket>();
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...options.limits };
  const gate = new ConnectionGate(limits);
  /** The sockets ssh2 was handed and has not told of yet, by the client's `address port`. */
  const accepted = new Map<string, AcceptedSocket>();
  const env = {
    deps: options.deps,
    registry: options.registry,
    rateLimiter: options.rateLimiter,
    log: options.log,
  };
  const track = (work: Promise<unknown>): void => {
    const settled = work.finally(() => running.delete(settled));
    running.add(settled);
  };

  const ssh = new ssh2.Server(
    { hostKeys: [hostKey.privateKey], ident: 'exectl' },
    (client, info) => {
      connections.add(client);
      client.on('close', () => {
        connections.delete(client);
        if (connections.size === 0 && shutdown.signal.aborted) everyoneGone();
      });
      const socket = accepted.get(peerKey(info.ip, info.port));
      if (socket === undefined) return void client.end();
      socket.wire.backlog.watch(client);
      serveConnection(client, { env, shutdown: shutdown.signal, track, ...socket });
    },
  );
  // ssh2 speaks SSH over sockets it is handed; owning the listener lets close() cut them, and
  // lets the limits count connections from their first byte (ssh2 tells of a client only once
  // it sent its version line, which an idle one never does).
  const onSocket = (socket: Socket): void => {
    const address = socket.remoteAddress;
    // Counted as HTTP counts them: an IPv6 client by its /64, a mapped IPv4 one unmapped.
    const admission = address === undefined ? undefined : gate.admit(clientAddressKey(address));
    if (admission === undefined) return void socket.destroy();
    const key = peerKey(address!, socket.remotePort!);
    const grace = setTimeout(() => socket.destroy(), limits.loginGraceMs).unref();
    sockets.add(socket);
    socket.once('close', () => {
      clearTimeout(grace);
      accepted.delete(key);
      admission.release();
      sockets.delete(socket);
    });
    ssh.injectSocket(socket);
    const vmId = options.vmAddresses.vmAt(socket.localAddress);
    accepted.set(key, {
      signedIn: () => {
        clearTimeout(grace);
        admission.authenticated();
      },
      wire: { backlog: new SocketBacklog(socket), cut: () => socket.destroy() },
      ...(vmId === undefined ? {} : { addressed: { vmId, address: socket.localAddress! } }),
    });
  };
  const tcp = createServer(onSocket);
  await listen(tcp, options.listen);
  tcp.on('error', (err) => options.log(`ssh listener error: ${err.message}`, 'error'));
  const { address, port } = tcp.address() as AddressInfo;
  try {
    await options.vmAddresses.serve(address, port, onSocket);
  } catch (err) {
    tcp.close();
    throw err;
  }

  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    shutdown.abort(new Cancellation('shutdown'));
    const vmAddressesStopped = options.vmAddresses.close();
    const stopped = new Promise<void>((resolve) => tcp.close(() => resolve()));
    await Promise.allSettled([...running]);
    // Sessions end themselves on shutdown and their clients then hang up; ending the
    // connections first could overtake the last words still queued on a channel.
    if (connections.size > 0) await within(allDisconnected, DISCONNECT_GRACE_MS);
    for (const client of connections) client.end();
    await within(stopped, DISCONNECT_GRACE_MS);
    for (const socket of sockets) socket.destroy();
    await Promise.all([stopped, vmAddressesStopped]);
  };
  return {
    address: { host: address, port },
    hostKeyFingerprint: hostKey.fingerprint,
    close: () => (closing ??= close()),
  };
}

/** What the listener knows of a socket it handed to ssh2, for the connection ssh2 makes of it. */
interface AcceptedSocket {
  /** Tells the admission it signed in (its login grace and caps, connection-limits). */
  signedIn(): void;
  wire: ConnectionWire;
  /** The VM whose own address the client connected to (any user name is then that VM). */
  addressed?: AddressedVm;
}

/** A client connection's address and port: what both the socket and ssh2 know it by. */
function peerKey(address: string, port: number): string {
  return `${address} ${port}`;
}

function listen(tcp: ReturnType<typeof createServer>, at: ListenAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    tcp.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        new ExectlError(
          'cannot_start',
          `cannot listen for SSH on ${at.host}:${at.port}: ${err.code}`,
          {
            hint: 'choose another address with --ssh-listen, or turn SSH off with --ssh-listen off',
            cause: err,
          },
        ),
      );
    });
    tcp.listen(at.port, at.host, () => resolve());
  });
}

/** Waits for `work`, but no longer than `ms`. */
async function within(work: Promise<void>, ms: number): Promise<void> {
  const timer = new AbortController();
  const timeUp = sleep(ms, undefined, { signal: timer.signal }).catch(() => {});
  await Promise.race([work, timeUp]);
  timer.abort();
}
export { VmAddressListeners, withVmAddresses } from './vm-address-listeners.js';
