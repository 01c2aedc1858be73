// A VM's web server for the memory test, run INSIDE a VM: `node zeros-server.mjs PORT`.
// Answers every request with `head -c 500000000 /dev/zero`, piped as it comes (so it too waits
// for its reader): 500 MB that the client may or may not read. Prints "closed" once a client's
// connection is gone.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';

const port = Number(process.argv[2]);

createServer((req, res) => {
  req.resume();
  const head = spawn('head', ['-c', '500000000', '/dev/zero'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
  head.stdout.pipe(res);
  res.on('close', () => {
    head.kill();
    console.log('closed');
  });
}).listen(port, '127.0.0.1');
