// The SSH listener on every VM's own address (SPEC §6a "Host names route SSH"): as root, each
// VM is reached at a loopback address of its own (rules/vm-ssh-address.ts) on the SSH port,
// where any user name is a session into that VM. A listener on a loopback address gets one
// more listener per VM, made with the VM (`new`, `cp`, the seed, server start) and closed with
// it (`rm`); a wildcard listener already answers at every such address.
import { createServer, type Server, type Socket } from 'node:net';
import type { LogSink } from '../config.js';
import type { VmSshAddresses } from '../deps.js';
import type { Store } from '../store/index.js';
import type { VmMachines } from '../vm/index.js';
import { vmIdAtAddress, vmSshAddress } from '../rules/vm-ssh-address.js';

/** Addresses a listener on every interface (IPv4, or dual-stack IPv6) binds. */
const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::']);

/** How the VMs' addresses are served: not at all, by the wildcard listener, or one each. */
type Serving =
  | { kind: 'off' }
  | { kind: 'wildcard' }
  | { kind: 'each'; port: number; onSocket: (socket: Socket) => void };

/**
 * The VMs' own SSH addresses of one server: off until {@link serve} is told where the SSH
 * listener is, and off for good when VMs are not machines of their own (an ordinary user's
 * server: their `ssh_dest` stays `vm+<name>@host`).
 */
export class VmAddressListeners implements VmSshAddresses {
  #serving: Serving = { kind: 'off' };
  /** Per VM id, its listener once listening (undefined: it could not listen). */
  readonly #servers = new Map<number, Promise<Server | undefined>>();
  readonly #listening = new Set<number>();
  #closed = false;

  /**
   * @param enabled whether VMs get addresses of their own (machine VMs: the server is root)
   * @param store where the VMs are, at {@link serve}
   */
  constructor(
    private readonly enabled: boolean,
    private readonly store: Store,
    private readonly log: LogSink,
  ) {}

  /**
   * Starts serving the address of every stored VM for the SSH listener bound at `host:port`
   * (its real address), which hands each connection to `onSocket`. A listener on neither a
   * loopback IPv4 address nor a wildcard one gives VMs no address (no loopback of the host
   * would reach it).
   */
  async serve(host: string, port: number, onSocket: (socket: Socket) => void): Promise<void> {
    if (!this.enabled) return;
    if (WILDCARD_HOSTS.has(host)) this.#serving = { kind: 'wildcard' };
    else if (/^127\./.test(host)) this.#serving = { kind: 'each', port, onSocket };
    else return;
    await Promise.all(this.store.listVmIds().map((id) => this.add(id)));
  }

  /** Whether VMs are served at addresses of their own (false: `vm+<name>@host` only). */
  get serving(): boolean {
    return this.#serving.kind !== 'off';
  }

  /** {@inheritDoc VmSshAddresses.addressOf} */
  addressOf(vmId: number): string | undefined {
    if (this.#serving.kind === 'wildcard') return vmSshAddress(vmId);
    return this.#listening.has(vmId) ? vmSshAddress(vmId) : undefined;
  }

  /** The VM a connection that arrived at `localAddress` is for; undefined: none, the lobby. */
  vmAt(localAddress: string | undefined): number | undefined {
    if (this.#serving.kind === 'off' || localAddress === undefined) return undefined;
    return vmIdAtAddress(localAddress);
  }

  /** Listens at the VM's address (a VM was made); once only per VM. */
  async add(vmId: number): Promise<void> {
    const serving = this.#serving;
    if (serving.kind !== 'each' || this.#closed || this.#servers.has(vmId)) return;
    const address = vmSshAddress(vmId);
    if (address === undefined) return;
    const server = listenAt(address, serving.port, serving.onSocket).then(
      (listening) => {
        this.#listening.add(vmId);
        return listening;
      },
      (err: NodeJS.ErrnoException) => {
        this.log(
          `ssh: vm ${vmId} has no address of its own: cannot listen on ${address}:${serving.port} (${err.code ?? err.message}); its ssh_dest is vm+<name>@host`,
          'warn',
        );
        return undefined;
      },
    );
    this.#servers.set(vmId, server);
    await server;
  }

  /** Stops listening at the VM's address (the VM is gone); its open connections end with rm's sessions. */
  async drop(vmId: number): Promise<void> {
    const server = this.#servers.get(vmId);
    this.#servers.delete(vmId);
    this.#listening.delete(vmId);
    (await server)?.close();
  }

  /** Stops every listener; resolves once each is closed (its connections are the front end's to cut). */
  async close(): Promise<void> {
    this.#closed = true;
    const servers = await Promise.all(this.#servers.values());
    this.#servers.clear();
    this.#listening.clear();
    await Promise.all(
      servers.flatMap((s) => (s ? [new Promise<void>((resolve) => s.close(() => resolve()))] : [])),
    );
  }
}

/**
 * `machines` with the VMs' addresses following the VMs: a VM made (`create`, `copy`) gets its
 * listener before the command answers, a removed one loses it.
 */
export function withVmAddresses<M extends VmMachines>(
  machines: M,
  addresses: VmAddressListeners,
): M {
  const following: Pick<VmMachines, 'create' | 'createInBackground' | 'copy' | 'remove'> = {
    async create(vm, signal) {
      await machines.create(vm, signal);
      await addresses.add(vm.id);
    },
    async createInBackground(vm, signal, waitUntil, credentials) {
      const made = await machines.createInBackground(vm, signal, waitUntil, credentials);
      await addresses.add(vm.id);
      return made;
    },
    async copy(from, to) {
      await machines.copy(from, to);
      await addresses.add(to.id);
    },
    async remove(vm) {
      await machines.remove(vm);
      await addresses.drop(vm.id);
    },
  };
  return { ...machines, ...following };
}

function listenAt(host: string, port: number, onSocket: (socket: Socket) => void): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(onSocket);
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.removeListener('error', reject);
      // A socket error after listening concerns one connection; ssh2's side reports it.
      server.on('error', () => {});
      resolve(server);
    });
  });
}
