// netns-door.cjs: run by node inside one VM's network namespace (vm/network/door.ts starts it
// with nsenter --net), as a child of the server with an IPC channel. No arguments: it makes the
// sockets the server asks for there and hands each over (SCM_RIGHTS), keeping none. At boot it
// is exec'd by netns-listen.pl, which made the VM's listeners already: EXECTL_DOOR_LISTENERS
// ("host port fd;...") names their inherited descriptors, handed over when asked for instead.
//   {id, op: 'connect', port}        a TCP connection to 127.0.0.1:port, handed over once connected
//   {id, op: 'listen', host, port}   a listening socket, handed over once bound
// Answers {id} with the socket, or {id, error: <errno code>}. It reads nothing the VM sends:
// a connection is paused before it connects, so its first bytes wait for the server. It ends
// when the server closes the channel.
'use strict';
const net = require('node:net');
// A TCP handle of node's own, to wrap an inherited listening socket without listening on it
// here: listening would let this helper accept (and lose) the connections waiting in its
// backlog, which are the server's.
const { TCP, constants: TCPConstants } = process.binding('tcp_wrap');

const fail = (id) => (err) => process.send({ id, error: String(err.code || 'EIO') });

/** Listening descriptors made before node started, by "host port". */
const inherited = new Map(
  (process.env.EXECTL_DOOR_LISTENERS || '')
    .split(';')
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [host, port, fd] = entry.split(' ');
      return [`${host} ${port}`, Number(fd)];
    }),
);

process.on('message', (ask) => {
  if (ask.op === 'connect') {
    const socket = net.connect({ host: '127.0.0.1', port: ask.port });
    socket.pause();
    socket.once('error', fail(ask.id));
    socket.once('connect', () => process.send({ id: ask.id }, socket));
  } else if (ask.op === 'listen') {
    const key = `${ask.host} ${ask.port}`;
    const fd = inherited.get(key);
    inherited.delete(key);
    if (fd !== undefined) return handOverInherited(ask.id, fd);
    const server = net.createServer();
    server.once('error', fail(ask.id));
    server.listen({ host: ask.host, port: ask.port, backlog: 511 }, () =>
      process.send({ id: ask.id }, server, () => server.close()),
    );
  }
});
process.on('disconnect', () => process.exit(0));

/** Sends the inherited listening socket `fd` as a server's handle, never accepting on it. */
function handOverInherited(id, fd) {
  const handle = new TCP(TCPConstants.SERVER);
  if (handle.open(fd) !== 0) return process.send({ id, error: 'EBADF' });
  const server = new net.Server();
  server._handle = handle;
  process.send({ id }, server, () => handle.close());
}
