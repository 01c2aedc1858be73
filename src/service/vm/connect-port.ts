// A TCP connection to a port of a VM, from where the runtime says that port is reached. Its
// callers (the proxy, SSH port forwarding) get a connected socket and never a path or address.
import { connect, type Socket } from 'node:net';
import type { VmPortTarget } from './contract.js';

/** Resolves with the socket once it is connected; rejects with the connection's error. */
export function connectPort(to: VmPortTarget): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = 'socketPath' in to ? connect(to.socketPath) : connect(to.port, to.host);
    const failed = (err: Error) => {
      socket.destroy();
      reject(err);
    };
    socket.once('error', failed);
    socket.once('connect', () => {
      socket.off('error', failed);
      resolve(socket);
    });
  });
}
