// What a machine VM's network is to the rest of vm/, whichever program gives it: the launcher
// starts the backend's helpers in the VM's namespaces (machine/launcher-argv.ts passes their
// words and pipes), the server follows them until the network is up, connects into the VM
// through it, and stops it with the VM. slirp4netns.ts is the first backend.
import type { Readable } from 'node:stream';
import type { Socket } from 'node:net';

/** A listener of the server to show inside every VM: its host address and its unix socket. */
export interface InboundListener {
  host: string;
  port: number;
  socketPath: string;
}

/** The server's ends of the pipes to the network helper the launcher started. */
export interface NetworkPipes {
  /** Says something once the network is configured; ends early when the helper ends. */
  ready: Readable;
  /** The helper exits once this closes (stop, or the server's death). */
  exit: Socket;
  errors: Readable;
}

/** One VM's network, from the launcher's start to the VM's end. */
export interface VmNetworkLink {
  /**
   * Follows the network the launcher started in the namespaces of `holderPid` (before the
   * VM's init exists); resolves once it is up and every port of `inboundPorts` listens inside.
   * `relayPids`: the inbound relays the launcher started, ended by {@link stop}.
   */
  attach(
    holderPid: number,
    relayPids: readonly number[],
    pipes: NetworkPipes,
    inboundPorts: readonly number[],
  ): Promise<void>;
  /** Names the VM's init: the process whose network namespace this is once the holder ends. */
  follow(initPid: number): void;
  /** A unix socket of the server's that carries a connection to `port` inside the VM. */
  relayTo(port: number): Promise<string>;
  /** Ends every helper of this network. */
  stop(): void;
}
