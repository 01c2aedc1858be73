// The one way into the network of a VM that shares the host's (the bwrap sandbox of an ordinary
// user, the process runtime): its ports are the host loopback's.
import { connect, type Socket } from 'node:net';

/** A connection to `port` on the host's loopback, once connected; rejects with its error. */
export function connectLoopback(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.removeListener('error', reject);
      resolve(socket);
    });
  });
}
