// The baseline: a bare node:http server answering POST /exec with a whoami-sized JSON body.
import { createServer } from 'node:http';

const body =
  JSON.stringify({
    email: 'bench@example.com',
    user_id: 'usr_AAAAAAAAAAAAAAAA',
    ssh_keys: [
      { name: 'bench', fingerprint: 'SHA256:x', public_key: 'ssh-ed25519 AAAA', current: true },
    ],
  }) + '\n';
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
