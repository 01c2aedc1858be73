// A VM's web server for the keep-alive test, run INSIDE a VM: `node closing-server.mjs PORT`.
// It answers the first request of each connection (200, JSON naming the connection and the
// request line, kept alive) and closes the connection, unanswered, on any later one: what a
// pooled connection looks like when the VM's server closed it as the proxy reused it.
import { createServer } from 'node:net';

const port = Number(process.argv[2]);
let connections = 0;

createServer((socket) => {
  const connection = ++connections;
  let answered = false;
  let pending = '';
  socket.on('data', (data) => {
    pending += data.toString('latin1');
    const end = pending.indexOf('\r\n\r\n');
    if (end < 0) return;
    if (answered) {
      socket.destroy();
      return;
    }
    answered = true;
    const line = pending.slice(0, pending.indexOf('\r\n'));
    pending = pending.slice(end + 4);
    const body = Buffer.from(JSON.stringify({ connection, line }));
    socket.write(
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${body.length}\r\n\r\n`,
    );
    socket.write(body);
  });
  socket.on('error', () => socket.destroy());
}).listen(port, '127.0.0.1');
