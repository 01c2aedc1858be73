// The first network backend (backend.ts): slirp4netns gives the VM's namespace outbound NAT
// with the host's loopback cut off. The launcher starts it (its words here) as soon as the
// namespaces exist; this follows it through its pipes.
import type { Socket } from 'node:net';
import { HOLDER_PID, type NetworkBackendLink } from './backend.js';

/** The slirp4netns program. */
export interface SlirpTools {
  slirp4netns: string;
}

const READY_TIMEOUT_MS = 10_000;

/** The pipes slirp4netns gets (launcher fds 5, 6, 7: see backend.ts LauncherNetwork). */
const PIPE = { ready: 0, exit: 1, errors: 2 } as const;
const FIRST_FD = 5;

/** One VM's slirp4netns. */
export class SlirpLink implements NetworkBackendLink {
  readonly launcher;
  private exit: Socket | undefined;

  constructor(tools: SlirpTools) {
    this.launcher = {
      argv: [
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
