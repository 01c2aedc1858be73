// netns-door.cjs: run by node inside one VM's network namespace (vm/network/door.ts starts it
// with nsenter --net), as a child of the server with an IPC channel. No arguments: it makes the
// sockets the server asks for there and hands each over (SCM_RIGHTS), keeping none.
//   {id, op: 'connect', port}        a TCP connection to 127.0.0.1:port, handed over once connected
//   {id, op: 'listen', host, port}   a listening socket, handed over once bound
// Answers {id} with the socket, or {id, error: <errno code>}. It reads nothing the VM sends:
// a connection is paused before it connects, so its first bytes wait for the server. It ends
// when the server closes the channel.
'use strict';
const net = require('node:net');

const fail = (id) => (err) => process.send({ id, error: String(err.code || 'EIO') });

process.on('message', (ask) => {
  if (ask.op === 'connect') {
    const socket = net.connect({ host: '127.0.0.1', port: ask.port });
    socket.pause();
    socket.once('error', fail(ask.id));
    socket.once('connect', () => process.send({ id: ask.id }, socket));
  } else if (ask.op === 'listen') {
    const server = net.createServer();
    server.once('error', fail(ask.id));
    server.listen({ host: ask.host, port: ask.port, backlog: 511 }, () =>
      process.send({ id: ask.id }, server, () => server.close()),
    );
  }
});
process.on('disconnect', () => process.exit(0));
