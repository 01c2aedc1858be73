// A VM's web server for the upgrade-smuggling test, run INSIDE a VM: `node keep-alive-server.mjs
// PORT`. It behaves like Python's BaseHTTPRequestHandler with protocol_version "HTTP/1.1": it
// knows nothing of upgrades, answers every request head on a connection in turn (200, a JSON
// body with Content-Length) and keeps the connection open for the next one. `GET /seen` answers
// every request it read before, as [request line, X-Exectl-Email or null].
import { createServer } from 'node:net';

const port = Number(process.argv[2]);
const seen = [];

createServer((socket) => {
  let pending = '';
  socket.on('data', (data) => {
    pending += data.toString('latin1');
    for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
      const [line, ...headers] = pending.slice(0, end).split('\r\n');
      pending = pending.slice(end + 4);
      const email = headers.find((h) => /^x-exectl-email:/i.test(h));
      const body = Buffer.from(JSON.stringify(line.startsWith('GET /seen ') ? seen : { line }));
      seen.push([line, email === undefined ? null : email.slice(email.indexOf(':') + 1).trim()]);
      socket.write(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n' +
          `Content-Length: ${body.length}\r\n\r\n`,
      );
      socket.write(body);
    }
  });
  socket.on('error', () => socket.destroy());
}).listen(port, '127.0.0.1');
