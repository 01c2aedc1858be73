// A VM's web server for the raw-socket proxy tests, run INSIDE a VM: `node raw-server.mjs PORT`.
// Records every request that reaches it (GET /seen lists them), answers with what arrived
// (method, url, raw headers and trailers, body length and SHA-256), and serves
// `GET /bytes?n=N`: N bytes of a fixed pattern, for downloads checked byte for byte.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
const seen = [];
/** Bytes of the last download written so far (the proxy's backpressure stops it). */
let written = 0;

/** Byte i of every download: a pattern that a shifted or dropped chunk would not repeat. */
function patternByte(i) {
  return (i * 7 + (i >> 13)) & 0xff;
}

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://vm');
  if (req.method === 'GET' && url.pathname === '/seen') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify(seen));
  }
  if (req.method === 'GET' && url.pathname === '/written') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify(written));
  }
  if (req.method === 'GET' && url.pathname === '/bytes') {
    const total = Number(url.searchParams.get('n'));
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': total });
    let sent = 0;
    const more = () => {
      while (sent < total) {
        const piece = Buffer.alloc(Math.min(64 * 1024, total - sent));
        for (let j = 0; j < piece.length; j++) piece[j] = patternByte(sent + j);
        sent += piece.length;
        written = sent;
        if (!res.write(piece)) return void res.once('drain', more);
      }
      res.end();
    };
    seen.push([req.method, req.url, req.rawHeaders]);
    return more();
  }
  const hash = createHash('sha256');
  let bytes = 0;
  req.on('data', (chunk) => {
    hash.update(chunk);
    bytes += chunk.length;
  });
  req.on('end', () => {
    const record = {
      method: req.method,
      url: req.url,
      rawHeaders: req.rawHeaders,
      rawTrailers: req.rawTrailers,
      bodyBytes: bytes,
      bodySha256: hash.digest('hex'),
    };
    seen.push([req.method, req.url, req.rawHeaders]);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(record));
  });
});
server.listen(port, '127.0.0.1');
