// A machine VM's network (SPEC §4 "its own network"): its backend (backend.ts) gives it
// outbound access; the door (door.ts) is the one way in, and the one way out to the server:
// the server's listeners appear inside at their host addresses as listening sockets made in
// the VM's namespace and handed to the server, which accepts on them itself. No process runs
// per connection, and the server knows which VM opened each one.
import { openSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import type { InboundListener, LauncherNetwork, NetworkBackendLink } from './backend.js';
import { NetnsDoor } from './door.js';
import { addGatewayAddress } from './link-local.js';

/** One machine VM's network, from the launcher's start to the VM's end. */
export class MachineNetwork {
  readonly launcher: LauncherNetwork;
  private door: NetnsDoor | null = null;
  private readonly listeners: Server[] = [];
  private stopped = false;

  constructor(
    private readonly backend: NetworkBackendLink,
    private readonly nsenter: string,
    private readonly perl: string,
    /** iproute2's `ip`: puts the gateway's link-local address on the VM's loopback. */
    private readonly ip: string,
    /** The words that start the door's helper in the VM's cgroups (door.ts `startIn`). */
    private readonly startIn: readonly string[] = [],
  ) {
    this.launcher = backend.launcher;
  }

  /**
   * Follows the network the launcher started for the namespaces of `holderPid` (through
   * `pipes`, the server's ends of the network program's pipes); resolves once it is up and
   * every listener of `inbound` listens inside: a VM's first command may well call the server.
   */
  async attach(
    holderPid: number,
    pipes: readonly Socket[],
    inbound: readonly InboundListener[],
  ): Promise<void> {
    // Held from now on: the holder is surely the VM's (the launcher's child, which sleeps until
    // bwrap reaps it), and the door never names a pid again that another process might take.
    const netns = openSync(`/proc/${holderPid}/ns/net`, 'r');
    const door = new NetnsDoor(this.nsenter, this.perl, netns, { startIn: this.startIn });
    this.door = door;
    // Before any listener is made: the gateway's listener binds that address.
    await addGatewayAddress(this.nsenter, this.ip, netns);
    // The listeners are made at once, while the backend configures the network (an IPv4
    // loopback or wildcard address binds before the loopback is up), by the door helper's perl
    // prelude: the VM's first command need not wait for node to start, since a connection made
    // before the server has the listener waits in its backlog. They are handed to the server in
    // the background. One that cannot be made yet (IPv6 `::1`) is made once the network is up,
    // and waited for.
    const made = door.prepare(inbound);
    await this.backend.attach(holderPid, pipes);
    const ready = await made;
    const early = inbound.filter((_, i) => ready[i]);
    const later = inbound.filter((_, i) => !ready[i]);
    const handedOver = early.map((listener) =>
      // Should the helper fail to hand one over, its descriptor is gone with it: made again.
      this.showInside(listener)
        .catch(() => this.showInside(listener))
        .catch(() => {}),
    );
    await Promise.all(later.map((listener) => this.showInside(listener)));
    // The helper ends then, once idle: VMs booting at once keep none.
    void Promise.all(handedOver).then(() => door.rest());
  }

  /** A TCP connection to `port` on the VM's own loopback (the one way in). */
  connect(port: number): Promise<Socket> {
    if (this.door === null || this.stopped) {
      return Promise.reject(new Error('the network of the VM is not up'));
    }
    return this.door.connect(port);
  }

  /** Closes the listeners inside, the door and the backend's program. */
  stop(): void {
    this.stopped = true;
    for (const server of this.listeners) server.close();
    this.listeners.length = 0;
    this.door?.close();
    this.backend.stop();
  }

  private async showInside(listener: InboundListener): Promise<void> {
    const server = await this.door!.listen(listener.host, listener.port);
    if (this.stopped) return void server.close();
    this.listeners.push(server);
    server.on('connection', (socket) => listener.accept(socket));
    // An accept failing (descriptors out) must not end the server; the next one may succeed.
    server.on('error', () => {});
  }
}
