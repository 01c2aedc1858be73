// Run by idle-connections.ts in a process of its own, so that its descriptors are not counted
// with the server's: opens COUNT connections to PORT on 127.0.0.1 from the loopback address
// FROM, never sends a byte, and prints one line per connection as it ends ("closed").
import { connect } from 'node:net';

const [port, from, count] = process.argv.slice(2);
for (let i = 0; i < Number(count); i++) {
  const socket = connect({ port: Number(port), host: '127.0.0.1', localAddress: from });
  // A connection closed at once may be reset: that is an end like any other.
  socket.on('error', () => {});
  // Read (and drop) what comes, or the end the server sends would never be noticed.
  socket.resume();
  socket.on('close', () => process.stdout.write('closed\n'));
}
