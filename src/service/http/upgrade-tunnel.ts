// Upgrades (WebSocket) through the VM proxy. No WebSocket code is needed: the request head goes
// to the VM's server as received (headers adjusted), then the two sockets are joined and every
// byte after that is relayed untouched. The VM's server accepts or refuses the upgrade itself.
import { ServerResponse, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { sendError, type FunnelOutcome } from './error-funnel.js';
import { CLIENT_CLOSED, upstreamAddress, vmNotAnswering, type VmUpstream } from './proxy-relay.js';

/**
 * Joins `client` (the socket Node hands to an `upgrade` listener, with `head`, the bytes read
 * past the request head) to the VM's server on `port`, sending it the request line and
 * `headers`. Resolves with the status the VM answered (101 when it took the upgrade) once both
 * sides have closed.
 *
 * @throws ExectlError 502 when the VM's server cannot be reached (nothing was relayed yet).
 */
export function tunnelToVm(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  target: VmUpstream & { headers: string[] },
): Promise<number> {
  return new Promise((resolve, reject) => {
    let status = CLIENT_CLOSED;
    let joined = false;
    const address = upstreamAddress(target.to);
    const upstream =
      'socketPath' in address ? connect(address.socketPath) : connect(address.port, address.host);
    upstream.once('connect', () => {
      joined = true;
      upstream.write(requestHead(req, target.headers));
      upstream.write(head);
      upstream.once('data', (chunk: Buffer) => (status = statusOf(chunk) ?? status));
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (err) => {
      if (joined) client.destroy();
      else reject(vmNotAnswering(target.vmName, target.port, err));
    });
    upstream.on('close', () => {
      if (joined) client.destroy();
      resolve(status);
    });
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
  });
}

/**
 * Answers an upgrade request on its raw socket through the error funnel, as a normal response
 * would be, then closes the connection (after an upgrade request Node no longer parses it).
 */
export function refuseOnSocket(
  req: IncomingMessage,
  socket: Duplex,
  err: unknown,
  requestId: string,
): FunnelOutcome {
  const res = new ServerResponse(req);
  res.setHeader('X-Request-Id', requestId);
  res.assignSocket(socket as Socket);
  res.shouldKeepAlive = false;
  res.on('finish', () => {
    res.detachSocket(socket as Socket);
    socket.end();
  });
  return sendError(res, err);
}

/** The request line and headers, as bytes (header values are latin1 strings of raw bytes). */
function requestHead(req: IncomingMessage, headers: readonly string[]): Buffer {
  let text = `${req.method} ${req.url} HTTP/${req.httpVersion}\r\n`;
  for (let i = 0; i + 1 < headers.length; i += 2) text += `${headers[i]}: ${headers[i + 1]}\r\n`;
  return Buffer.from(`${text}\r\n`, 'latin1');
}

/** The status code of the first bytes of an HTTP/1 response, if they are one. */
function statusOf(chunk: Buffer): number | undefined {
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(chunk.subarray(0, 16).toString('latin1'));
  return match === null ? undefined : Number(match[1]);
}
