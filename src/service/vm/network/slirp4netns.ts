// The first network backend (backend.ts): slirp4netns gives the VM's namespace outbound NAT
// with the host's loopback cut off, as an id of the VM's own that the host's wall keeps off
// every host address (host-wall.ts). The launcher starts it (its words here) as soon as the
// namespaces exist; this follows it through its pipes.
import type { Socket } from 'node:net';
import { networkHelperId } from '../id-ranges.js';
import { HOLDER_PID, type NetworkBackendLink } from './backend.js';

/** The programs slirp4netns is started with. */
export interface SlirpTools {
  slirp4netns: string;
  setpriv: string;
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

  constructor(tools: SlirpTools, idBase: number) {
    const id = networkHelperId(idBase);
    this.launcher = {
      argv: [
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

// Resolves once slirp4netns says the VM's network is configured; rejects with its last message
// when it ends first (its pipe closes) or says nothing in time.
function slirpReady(ready: Socket, errors: Socket): Promise<void> {
  let stderr = '';
  errors.on('data', (c: Buffer) => (stderr.length < 2048 ? (stderr += c.toString()) : undefined));
  return new Promise((resolve, reject) => {
    const settle = (why?: string) => {
      clearTimeout(timer);
      ready.removeAllListeners('data').removeAllListeners('end');
      for (const stream of [ready, errors]) stream.unref();
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
