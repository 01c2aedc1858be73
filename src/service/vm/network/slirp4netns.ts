// The first network backend (backend.ts): slirp4netns gives the VM's namespace outbound NAT
// with the host's loopback cut off, as an id of the VM's own that the host's wall keeps off
// every host address (host-wall.ts). The launcher starts it (its words here) as soon as the
// namespaces exist; this follows it through its pipes.
import { statSync } from 'node:fs';
import type { Socket } from 'node:net';
import { networkHelperId } from '../id-ranges.js';
import { scriptText } from '../scripts/index.js';
import { HOLDER_PID, type NetworkBackendLink } from './backend.js';

/** The programs slirp4netns is started with. */
export interface SlirpTools {
  slirp4netns: string;
  setpriv: string;
  /** Gives slirp4netns a tun device node of its own where the host's is root's alone. */
  unshare: string;
}

/** The tun device slirp4netns opens, as the VM's network helper id. */
const TUN_DEVICE = '/dev/net/tun';

/**
 * True when every user may open the host's tun device node (udev's rule makes it 0666); else
 * each slirp4netns is given a node of its own (scripts/private-tun.sh), as host root can.
 */
export function tunOpenToAll(path: string = TUN_DEVICE): boolean {
  try {
    const node = statSync(path);
    return node.isCharacterDevice() && (node.mode & 0o006) === 0o006;
  } catch {
    return false;
  }
}

/**
 * The capabilities slirp4netns starts with, ambient so that they outlive the change of ids
 * (measured): `sys_ptrace` to open `/proc/<holder>/ns/*` (the holder runs as host root),
 * `sys_admin` to join the VM's user namespace, then its network namespace. It holds them only
 * until it has joined the VM's user namespace, before the VM's first packet: from then on it
 * is the VM's root id there, with `net_bind_service` alone (its `--enable-sandbox`).
 */
const SLIRP_CAPS = '+sys_admin,+sys_ptrace';

const READY_TIMEOUT_MS = 10_000;

/** The pipes slirp4netns gets (launcher fds 5, 6, 7: see backend.ts LauncherNetwork). */
const PIPE = { ready: 0, exit: 1, errors: 2 } as const;
const FIRST_FD = 5;

/**
 * One VM's slirp4netns, started as the network helper id of the VM whose id range starts at
 * `idBase` (id-ranges.ts), never host root, so that the host's network wall (host-wall.ts) can
 * refuse it every address of the host.
 */
export class SlirpLink implements NetworkBackendLink {
  readonly launcher;
  private exit: Socket | undefined;

  constructor(tools: SlirpTools, idBase: number, tunOpen: boolean = tunOpenToAll()) {
    const id = networkHelperId(idBase);
    // A host whose tun node only root may open (no udev rule: measured on a minimal Ubuntu
    // 24.04) would refuse the helper id it: slirp4netns then runs where /dev/net/tun is ours.
    const privateTun = [
      tools.unshare,
      '--mount',
      '--propagation',
      'private',
      '--',
      '/bin/sh',
      '-c',
      scriptText('private-tun.sh'),
      'private-tun',
    ];
    this.launcher = {
      argv: [
        ...(tunOpen ? [] : privateTun),
        tools.setpriv,
        `--reuid=${id}`,
        `--regid=${id}`,
        '--clear-groups',
        `--inh-caps=${SLIRP_CAPS}`,
        `--ambient-caps=${SLIRP_CAPS}`,
        '--',
        tools.slirp4netns,
        '--configure',
        '--mtu=65520',
        '--disable-host-loopback',
        '--enable-sandbox',
        '--enable-seccomp',
        `--ready-fd=${FIRST_FD + PIPE.ready}`,
        // slirp4netns exits once the server's end of this pipe closes (stop, or its death).
        `--exit-fd=${FIRST_FD + PIPE.exit}`,
        HOLDER_PID,
        'tap0',
      ],
      pipes: 3,
    };
  }

  attach(_holderPid: number, pipes: readonly Socket[]): Promise<void> {
    this.exit = pipes[PIPE.exit];
    return slirpReady(pipes[PIPE.ready]!, pipes[PIPE.errors]!);
  }

  stop(): void {
    this.exit?.destroy();
  }
}

/** How long the reason of a slirp4netns that ended may take to arrive after its ready pipe's end. */
const REASON_WAIT_MS = 1_000;

// Resolves once slirp4netns says the VM's network is configured; rejects with what it said
// when it ends first (its pipe closes) or says nothing in time.
function slirpReady(ready: Socket, errors: Socket): Promise<void> {
  let stderr = '';
  errors.on('data', (c: Buffer) => (stderr.length < 2048 ? (stderr += c.toString()) : undefined));
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (why?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ready.removeAllListeners('data').removeAllListeners('end');
      for (const stream of [ready, errors]) stream.unref();
      errors.resume();
      if (why === undefined) return resolve();
      // Its words but its warnings: the reason (`open("/dev/net/tun"): Permission denied`,
      // from the child that joins the VM's namespaces) comes before `child failed(1)`.
      const said = stderr
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '' && !line.startsWith('WARNING:'))
        .join('; ');
      reject(new Error(`the network of the VM did not start: ${said || why}`));
    };
    const timer = setTimeout(() => settle('no answer'), READY_TIMEOUT_MS);
    ready.once('data', () => settle());
    // Both pipes close as it ends, in either order: its reason is read before it is told.
    const ended = () => {
      if (errors.readableEnded || errors.destroyed) return settle('slirp4netns ended');
      errors.once('close', () => settle('slirp4netns ended'));
      setTimeout(() => settle('slirp4netns ended'), REASON_WAIT_MS).unref();
    };
    ready.once('end', ended);
    ready.on('error', ended);
  });
}
