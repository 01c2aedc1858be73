// A VM's own network (SPEC §4): the sandbox has a network namespace of its own; slirp4netns
// gives it outbound NAT with the host's loopback cut off, and socat relays put exactly the
// server's own listeners inside it, at their host addresses, and carry the VM proxy's
// connections to a port of the VM. Every helper is a child of the server that dies with it.
import { spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdir, readFile, stat } from 'node:fs/promises';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_PATH } from './command-env.js';

/** The tools a VM's network needs. */
export interface NetworkTools {
  slirp4netns: string;
  socat: string;
  nsenter: string;
  setpriv: string;
}

/** A listener of the server to show inside every VM: its host address and its unix socket. */
export interface InboundListener {
  host: string;
  port: number;
  socketPath: string;
}

const READY_TIMEOUT_MS = 10_000;

// $1 setpriv, $2 socat, then pairs of addresses: all but the last pair in the background, the
// last one in place of the shell. Our words only.
const RELAYS_SCRIPT = [
  'setpriv=$1 socat=$2',
  'shift 2',
  'while [ $# -gt 2 ]; do "$setpriv" --pdeathsig=SIGKILL -- "$socat" "$1" "$2" & shift 2; done',
  'exec "$setpriv" --pdeathsig=SIGKILL -- "$socat" "$1" "$2"',
].join('; ');

/** The running network helpers of one VM. */
export class VmNetwork {
  private readonly helpers: ChildProcess[] = [];
  private readonly relays = new Map<number, Promise<string>>();

  constructor(
    private readonly tools: NetworkTools,
    /**
     * A process in the VM's network namespace: the launcher's holder while the VM boots (the
     * network starts before the VM's init exists), then the init ({@link follow}).
     */
    private netPid: number,
    /** A folder only the server reaches, for this VM's relay sockets. */
    private readonly runDir: string,
    /**
     * The host id the relays run as: the VM's own root id, which no other host process has
     * (the VM's own processes, in another pid namespace, cannot even name them). Not
     * `nobody`, which any host daemon may run as and could attach to a relay with ptrace.
     */
    private readonly relayId: number,
  ) {}

  /**
   * Starts slirp4netns and the inbound relays together (each start costs the server a fork);
   * resolves once the VM's network is up.
   */
  async start(inbound: readonly InboundListener[]): Promise<void> {
    const slirp = this.startSlirp();
    const pairs = inbound.flatMap((listener) => {
      const bind = listener.host.includes(':') ? `TCP6-LISTEN` : 'TCP4-LISTEN';
      const address = listener.host.includes(':') ? `[${listener.host}]` : listener.host;
      return [
        `${bind}:${listener.port},bind=${address},fork,reuseaddr`,
        `UNIX-CONNECT:${listener.socketPath}`,
      ];
    });
    if (pairs.length > 0) this.spawnRelay(pairs);
    await slirp;
    // A VM's first command may well call the server: the relays must be listening by then.
    await this.listening(inbound.map((listener) => listener.port));
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

  /** Ends every helper. */
  stop(): void {
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

  // One relay per pair of socat addresses, in one process tree: it joins only the VM's network
  // namespace, as the relay id. Every socat dies with its parent (PDEATHSIG, which setpriv sets
  // after changing ids): the last one is the spawned process itself, which dies with the server
  // or `stop`, and each other one is its child.
  private spawnRelay(addresses: string[]): void {
    const who = [`--reuid=${this.relayId}`, `--regid=${this.relayId}`, '--clear-groups'];
    const child = spawn(
      this.tools.nsenter,
      [
        `--net=/proc/${this.netPid}/ns/net`,
        '--',
        this.tools.setpriv,
        ...who,
        '--no-new-privs',
        '--',
        '/bin/sh',
        '-c',
        RELAYS_SCRIPT,
        'relays',
        this.tools.setpriv,
        this.tools.socat,
        ...addresses,
      ],
      { env: { PATH: DEFAULT_PATH }, stdio: 'ignore', detached: true },
    );
    child.unref();
    this.helpers.push(child);
  }

  private startSlirp(): Promise<void> {
    // fd 3: slirp4netns says "1" once the tap device is configured; fd 4: it exits when the
    // server closes this pipe or dies.
    const child = spawn(
      this.tools.slirp4netns,
      [
        '--configure',
        '--mtu=65520',
        '--disable-host-loopback',
        '--enable-sandbox',
        '--enable-seccomp',
        '--ready-fd=3',
        '--exit-fd=4',
        String(this.netPid),
        'tap0',
      ],
      {
        env: { PATH: DEFAULT_PATH },
        stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
        detached: true,
      },
    );
    this.helpers.push(child);
    child.unref();
    const ready = child.stdio[3] as Readable;
    const errors = child.stdio[2] as Readable;
    let stderr = '';
    errors.on('data', (c: Buffer) => (stderr.length < 2048 ? (stderr += c.toString()) : undefined));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => fail('no answer'), READY_TIMEOUT_MS);
      const fail = (why: string) => {
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(
          new Error(
            `the network of the VM did not start: ${stderr.trim().split('\n').at(-1) || why}`,
          ),
        );
      };
      ready.once('data', () => {
        clearTimeout(timer);
        for (const stream of [ready, errors, child.stdio[4]]) (stream as Socket).unref();
        errors.resume();
        resolve();
      });
      child.once('exit', (code) => fail(`slirp4netns ended with exit code ${code}`));
    });
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
