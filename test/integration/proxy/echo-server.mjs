// A VM's web server for the proxy tests, run INSIDE a VM: `node echo-server.mjs PORT`.
// HTTP: answers every request with JSON describing what arrived (headers as raw latin1 strings,
// so the test can recover the exact bytes). WebSocket: after the handshake it first sends the
// upgrade request's headers as one text message, then echoes every text message back.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const seen = {
      method: req.method,
      url: req.url,
      rawHeaders: req.rawHeaders,
      bodyBytes: body.length,
      bodySha256: createHash('sha256').update(body).digest('hex'),
      // Which connection brought it: the proxy keeps connections to the VM's server alive.
      remotePort: req.socket.remotePort,
    };
    // Two Set-Cookie headers: repeated response headers must survive the proxy.
    res.writeHead(201, 'Echoed', [
      'Content-Type',
      'application/json',
      'Set-Cookie',
      'a=1',
      'Set-Cookie',
      'b=2',
    ]);
    res.end(JSON.stringify(seen));
  });
});

server.on('upgrade', (req, socket) => {
  const accept = createHash('sha1')
    .update(req.headers['sec-websocket-key'] + WS_GUID)
    .digest('base64');
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
  );
  socket.write(frame(1, Buffer.from(JSON.stringify({ rawHeaders: req.rawHeaders }))));
  let pending = Buffer.alloc(0);
  socket.on('data', (data) => {
    pending = Buffer.concat([pending, data]);
    for (let next = readFrame(pending); next !== null; next = readFrame(pending)) {
      pending = pending.subarray(next.size);
      if (next.opcode === 8) {
        socket.end(frame(8, next.payload));
        return;
      }
      if (next.opcode === 1) socket.write(frame(1, next.payload));
    }
  });
  socket.on('error', () => socket.destroy());
});

/** One unmasked, final server frame (RFC 6455 §5.2). */
function frame(opcode, payload) {
  const n = payload.length;
  const head =
    n < 126 ? Buffer.from([0x80 | opcode, n]) : Buffer.from([0x80 | opcode, 126, n >> 8, n & 0xff]);
  return Buffer.concat([head, payload]);
}

/** The first complete masked client frame of `buf` (payloads under 64 KiB), or null. */
function readFrame(buf) {
  if (buf.length < 2) return null;
  let length = buf[1] & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buf.length < 4) return null;
    length = buf.readUInt16BE(2);
    offset = 4;
  }
  const size = offset + 4 + length;
  if (buf.length < size) return null;
  const mask = buf.subarray(offset, offset + 4);
  const payload = Buffer.from(buf.subarray(offset + 4, size));
  for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4];
  return { opcode: buf[0] & 0x0f, payload, size };
}

server.listen(port, '127.0.0.1');
