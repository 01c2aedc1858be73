// Local port forwarding into a VM (`ssh -L 9000:localhost:8000 vm+web@...`, SPEC §6a): a
// `direct-tcpip` channel becomes a connection to the port inside the VM's own network, made
// by the VM contract's one way in (`VmMachines.connect`); never a port of the host.
import type { Socket } from 'node:net';
import type { AcceptConnection, RejectConnection, ServerChannel, TcpipRequestInfo } from 'ssh2';
import { guardChannel } from '../channel-guard.js';
import type { SessionContext } from '../session-context.js';
import type { VmTarget } from './vm-target.js';

/** The SSH connection a forwarding belongs to. */
export interface ForwardingConnection {
  /** Aborted once the client's connection closed. */
  closed: AbortSignal;
  /** Called once the forwarding ended, or was refused: its place is free again. */
  ended(): void;
}

/** Destination hosts that mean the VM itself, as `localhost` does inside it. */
const VM_HOSTS = new Set(['localhost', '127.0.0.1', '::1', 'ip6-localhost']);

/**
 * Accepts the forwarding when the destination is the VM itself (`localhost`, its loopback
 * addresses or its own name) on a port from 1 to 65535, the key may use the VM, and something
 * listens there; the channel and the connection are then piped both ways with backpressure.
 * Refused (the client says `open failed`) otherwise.
 */
export function forwardIntoVm(
  ctx: SessionContext,
  target: VmTarget,
  info: TcpipRequestInfo,
  accept: AcceptConnection<ServerChannel>,
  reject: RejectConnection,
  connection: ForwardingConnection,
): void {
  let ended = false;
  const end = () => {
    if (!ended) connection.ended();
    ended = true;
  };
  const refuse = () => {
    reject();
    end();
  };
  const port = info.destPort;
  if (!Number.isInteger(port) || port < 1 || port > 65535) return refuse();
  let connecting: Promise<Socket>;
  try {
    const vm = target.open(ctx);
    const toVm = VM_HOSTS.has(info.destIP.toLowerCase()) || info.destIP === vm.name;
    if (!toVm || vm.status === 'paused') return refuse();
    connecting = ctx.env.deps.machines.connect(vm, port);
  } catch {
    return refuse();
  }
  ctx.track(
    connecting.then((socket) => {
      // A client gone meanwhile has no channel to accept: the connection inside is let go.
      if (ctx.shutdown.aborted || connection.closed.aborted) {
        socket.destroy();
        return end();
      }
      socket.once('close', end);
      const channel = accept();
      guardChannel(channel, ctx.wire);
      socket.on('error', () => channel.destroy());
      channel.on('error', () => socket.destroy());
      socket.pipe(channel).on('error', () => {});
      channel.pipe(socket);
      const cut = (): void => void socket.destroy();
      ctx.shutdown.addEventListener('abort', cut, { once: true });
      channel.once('close', () => socket.destroy());
      socket.once('close', () => {
        ctx.shutdown.removeEventListener('abort', cut);
        channel.end();
      });
    }, refuse),
  );
}
