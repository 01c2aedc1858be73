// What a machine VM's network is to the rest of vm/, whichever program gives it outbound access:
// the backend says what the launcher starts once the VM's namespaces exist (its words and how
// many pipes to the server it gets), follows it until the network is up, and stops it with the
// VM. slirp4netns.ts is the first backend; a second (pasta) is one more file here. What is the
// same for every backend (the door into the namespace, the server's listeners inside it) is
// machine-network.ts's.
import type { Socket } from 'node:net';

/**
 * A listener of the server to show inside every VM at its host address: `accept` is handed
 * each connection the VM opens to it.
 */
export interface InboundListener {
  host: string;
  port: number;
  accept(socket: Socket): void;
}

/** The word of {@link LauncherNetwork}'s `argv` that the launcher replaces with the holder's pid. */
export const HOLDER_PID = '{holder}';

/**
 * The network program the launcher starts (machine/launcher-argv.ts, launch-machine.sh): its
 * words, where {@link HOLDER_PID} stands for the pid of the process holding the VM's new user
 * and network namespaces, and how many pipes to the server it gets. It finds them as fds 5, 6,
 * … (the launcher's own numbers, handed down as they are); its stderr is the last of them.
 */
export interface LauncherNetwork {
  argv: readonly string[];
  pipes: number;
}

/** One VM's network as its backend gives it, from the launcher's start to the VM's end. */
export interface NetworkBackendLink {
  /** What the launcher starts. */
  readonly launcher: LauncherNetwork;
  /**
   * Follows the program the launcher started for the namespaces of `holderPid`, through the
   * server's ends of its pipes (in order); resolves once the network is up.
   */
  attach(holderPid: number, pipes: readonly Socket[]): Promise<void>;
  /** Ends the program (its pipes close). */
  stop(): void;
}

/** Makes the backend part of each VM's network. */
export type NetworkBackend = () => NetworkBackendLink;
