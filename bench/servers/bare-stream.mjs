// The baseline of the stream benchmark: a bare node:http server answering every request with
// the output of `head -c <bytes> /dev/zero`, piped as it comes (what `ssh <vm> head -c ...`
// streams through /exec, without exectl). Prints its URL.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  req.resume();
  const bytes = new URL(req.url, 'http://x').searchParams.get('bytes') ?? '200000000';
  const head = spawn('head', ['-c', bytes, '/dev/zero'], { stdio: ['ignore', 'pipe', 'ignore'] });
  res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
  head.stdout.pipe(res);
  res.on('close', () => head.kill());
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
