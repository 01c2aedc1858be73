// A VM's own network (SPEC §4): the sandbox has a network namespace of its own; slirp4netns
// gives it outbound NAT, as an id of the VM's own that the host's wall keeps off every host
// address (host-wall.ts), and socat relays put exactly the server's own listeners inside it,
// at their host addresses, and carry the VM proxy's connections to a port of the VM. The
// launcher starts slirp4netns and the inbound relays (machine/launcher-argv.ts); this follows
// them and starts the proxy's relays.
import { readFileSync } from 'node:fs';
import { chown, mkdir, readFile, stat } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_PATH, spawnHost, type ChildProcess } from '../process/index.js';
import type { RelayPair } from '../machine/index.js';
import { networkHelperId } from '../id-ranges.js';
import type { InboundListener, NetworkPipes, VmNetworkLink } from './backend.js';

/** The tools a VM's network needs. */
export interface NetworkTools {
  slirp4netns: string;
  socat: string;
  nsenter: string;
  setpriv: string;
}

const READY_TIMEOUT_MS = 10_000;

/**
 * The capabilities slirp4netns starts with, ambient so that they outlive the change of ids
 * (measured): `sys_ptrace` to open `/proc/<holder>/ns/*` (the holder runs as host root),
 * `sys_admin` to join the VM's user namespace, then its network namespace. It holds them only
 * until it has joined the VM's user namespace, before the VM's first packet: from then on it
 * is the VM's root id there, with `net_bind_service` alone (its `--enable-sandbox`).
 */
const SLIRP_CAPS = '+sys_admin,+sys_ptrace';

/**
 * The words that start slirp4netns for the VM whose id range starts at `idBase`: as the VM's
 * network helper id (id-ranges.ts), never host root, so that the host's network wall
 * (host-wall.ts) can refuse it every address of the host.
 */
export function slirpCommand(tools: NetworkTools, idBase: number): string[] {
  const id = networkHelperId(idBase);
  return [
    tools.setpriv,
    `--reuid=${id}`,
    `--regid=${id}`,
    '--clear-groups',
    `--inh-caps=${SLIRP_CAPS}`,
    `--ambient-caps=${SLIRP_CAPS}`,
    '--',
    tools.slirp4netns,
  ];
}

/** The relays that show the server's listeners inside a VM (the launcher starts them). */
export function inboundRelays(inbound: readonly InboundListener[]): RelayPair[] {
  return inbound.map((listener) => {
    const bind = listener.host.includes(':') ? `TCP6-LISTEN` : 'TCP4-LISTEN';
    const address = listener.host.includes(':') ? `[${listener.host}]` : listener.host;
    return [
      `${bind}:${listener.port},bind=${address},fork,reuseaddr`,
      `UNIX-CONNECT:${listener.socketPath}`,
    ];
  });
}

/**
 * The network of one VM: slirp4netns and the inbound relays, which the launcher starts
 * (machine/launcher-argv.ts), and the relays the VM proxy asks for, which this starts.
 */
export class SlirpNetwork implements VmNetworkLink {
  private readonly helpers: ChildProcess[] = [];
  private readonly relays = new Map<number, Promise<string>>();
  private slirp: NetworkPipes | undefined;
  private inboundRelayPids: readonly number[] = [];
  private netPid = 0;

  constructor(
    private readonly tools: NetworkTools,
    /** A folder only the server reaches, for this VM's relay sockets. */
    private readonly runDir: string,
    /** The host id the relays run as: the VM's own root id (see machine/launcher-argv.ts). */
    private readonly relayId: number,
  ) {}

  /**
   * Follows the network the launcher started in the namespaces of `holderPid` (the network
   * starts before the VM's init exists; {@link follow} names the init later); resolves once
   * slirp4netns is ready and every inbound port listens: a VM's first command may well call
   * the server.
   */
  async attach(
    holderPid: number,
    relayPids: readonly number[],
    slirp: NetworkPipes,
    inboundPorts: readonly number[],
  ) {
    this.netPid = holderPid;
    this.inboundRelayPids = relayPids;
    this.slirp = slirp;
    await slirpReady(slirp);
    await this.listening(inboundPorts);
  }

  /** Waits until every port is a listening socket in the VM's network namespace. */
  private async listening(ports: readonly number[]): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const tables = await Promise.all(
        ['tcp', 'tcp6'].map((t) =>
          readFile(`/proc/${this.netPid}/net/${t}`, 'utf8').catch(() => ''),
        ),
      );
      const open = listeningPorts(tables.join('\n'));
      if (ports.every((port) => open.has(port))) return;
      if (Date.now() > deadline) throw new Error('the relays into the VM did not start');
      await sleep(1);
    }
  }

  /**
   * The unix socket that reaches `port` on the VM's own loopback, its relay started on first
   * use. The proxy connects there: never to a port of the host.
   */
  relayTo(port: number): Promise<string> {
    let relay = this.relays.get(port);
    if (relay === undefined) {
      relay = this.startProxyRelay(port);
      this.relays.set(port, relay);
      relay.catch(() => this.relays.delete(port));
    }
    return relay;
  }

  /** From now on, reach the namespace through `pid` (the VM's init: it lives as long as the VM). */
  follow(pid: number): void {
    this.netPid = pid;
  }

  /**
   * Ends every helper. The inbound relays end with the VM's bwrap, their parent, unless it
   * died before they asked for that: those end here. A pid is signalled only while it runs as
   * the relay id, which no host process but this VM's relays and its own processes (about to
   * end with it) has: never a process of anyone else that took a dead relay's pid.
   */
  stop(): void {
    for (const pid of this.inboundRelayPids) {
      if (realUid(pid) !== this.relayId) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // It ended between the look and the kill.
      }
    }
    this.inboundRelayPids = [];
    this.slirp?.exit.destroy();
    for (const helper of this.helpers) helper.kill('SIGKILL');
    this.helpers.length = 0;
    this.relays.clear();
  }

  private async startProxyRelay(port: number): Promise<string> {
    // The relay id makes its socket in a folder of its own, 0700: only it and root reach it.
    await mkdir(this.runDir, { recursive: true, mode: 0o700 });
    await chown(this.runDir, this.relayId, this.relayId);
    const path = join(this.runDir, `port-${port}.sock`);
    this.spawnRelay([
      `UNIX-LISTEN:${path},fork,unlink-early,mode=0600,backlog=1024`,
      `TCP4:127.0.0.1:${port}`,
    ]);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (
      !(await stat(path).then(
        (s) => s.isSocket(),
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error(`the relay to port ${port} did not start`);
      await sleep(2);
    }
    return path;
  }

  // A relay for the proxy: it joins only the VM's network namespace, as the relay id, and dies
  // with the server (PDEATHSIG, which setpriv sets after changing ids) or at `stop`.
  private spawnRelay([listen, connect]: RelayPair): void {
    const who = [`--reuid=${this.relayId}`, `--regid=${this.relayId}`, '--clear-groups'];
    const child = spawnHost(
      this.tools.nsenter,
      [
        `--net=/proc/${this.netPid}/ns/net`,
        '--',
        this.tools.setpriv,
        ...who,
        '--no-new-privs',
        '--pdeathsig=SIGKILL',
        '--',
        this.tools.socat,
        listen,
        connect,
      ],
      { env: { PATH: DEFAULT_PATH }, stdio: 'ignore', detached: true },
    );
    child.unref();
    this.helpers.push(child);
  }
}

// Resolves once slirp4netns says the VM's network is configured; rejects with its last message
// when it ends first (its pipe closes) or says nothing in time.
function slirpReady({ ready, errors }: NetworkPipes): Promise<void> {
  let stderr = '';
  errors.on('data', (c: Buffer) => (stderr.length < 2048 ? (stderr += c.toString()) : undefined));
  return new Promise((resolve, reject) => {
    const settle = (why?: string) => {
      clearTimeout(timer);
      ready.removeAllListeners('data').removeAllListeners('end');
      for (const stream of [ready, errors]) (stream as Socket).unref();
      errors.resume();
      if (why === undefined) return resolve();
      const last = stderr.trim().split('\n').at(-1);
      reject(new Error(`the network of the VM did not start: ${last || why}`));
    };
    const timer = setTimeout(() => settle('no answer'), READY_TIMEOUT_MS);
    ready.once('data', () => settle());
    ready.once('end', () => settle('slirp4netns ended'));
    ready.on('error', () => settle('slirp4netns ended'));
  });
}

// The real uid of a process, or undefined once it is gone.
function realUid(pid: number): number | undefined {
  try {
    return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
}

/**
 * The local ports in state LISTEN (0A) of /proc/<pid>/net/tcp{,6} text, whose lines read
 * `sl local_address:port rem_address st …` with the port in hex.
 */
export function listeningPorts(table: string): Set<number> {
  const ports = new Set<number>();
  for (const line of table.split('\n')) {
    const [, local, , state] = line.trim().split(/\s+/);
    if (state === '0A' && local !== undefined) ports.add(parseInt(local.split(':').at(-1)!, 16));
  }
  return ports;
}
