// The server behind the proxy benchmark, run both inside a VM (through the proxy) and bare on
// the host (the baseline): `node plain-http.mjs [PORT]` answers every request with a short
// text body and prints its URL. Nothing else: the difference between the two is the proxy.
import { createServer } from 'node:http';

const body = Buffer.from('hello from the vm\n');
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
