// Upgrades (WebSocket) through the VM proxy. No WebSocket code is needed: the request goes to
// the VM's server as received (headers adjusted) and the VM's server accepts or refuses the
// upgrade itself. Only a 101 joins the two sockets, after which every byte is relayed untouched.
// Anything else is one ordinary answer, after which the connection closes: the bytes that
// followed the upgrade request (perhaps a second request, with forged X-Exectl-* headers) were
// never parsed by the proxy, so they must never reach the VM's server.
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { sendError, type FunnelOutcome } from './error-funnel.js';
import { headersFromVm } from './proxy-headers.js';
import { CLIENT_CLOSED, requestToVm, vmNotAnswering, type VmUpstream } from './proxy-relay.js';

/**
 * Sends the upgrade request `req` with `headers` to the VM's server on `port`. On 101, joins
 * `client` (the socket Node hands to an `upgrade` listener) to it, `head` (the bytes read past
 * the request head) first; on any other answer, sends that answer to the client and closes
 * both connections. Resolves with the status the VM answered once the exchange is over.
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
    // A connection of its own: it becomes the tunnel, or closes after the answer.
    const upstream = requestToVm(req, target, false);
    upstream.on('upgrade', (answer: IncomingMessage, socket: Socket, upstreamHead: Buffer) => {
      status = 101;
      client.write(responseHead(answer));
      client.write(upstreamHead);
      socket.write(head);
      socket.pipe(client);
      client.pipe(socket);
      socket.on('error', () => client.destroy());
      socket.on('close', () => {
        client.destroy();
        resolve(status);
      });
      client.on('close', () => socket.destroy());
    });
    upstream.on('response', (answer) => {
      status = answer.statusCode ?? 502;
      const res = closingResponse(req, client);
      res.writeHead(status, answer.statusMessage, headersFromVm(answer.rawHeaders));
      answer.pipe(res);
      answer.on('error', () => client.destroy());
      // The VM's server may keep the connection for a next request: there is none.
      answer.on('end', () => upstream.destroy());
    });
    upstream.on('error', (err) => {
      if (status === CLIENT_CLOSED) reject(vmNotAnswering(target.vmName, target.port, err));
      else client.destroy();
    });
    client.on('error', () => upstream.destroy());
    client.on('close', () => {
      upstream.destroy();
      if (status !== 101) resolve(status);
    });
    upstream.end();
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
  const res = closingResponse(req, socket);
  res.setHeader('X-Request-Id', requestId);
  return sendError(res, err);
}

/**
 * A response written on the raw socket of an upgrade request, which closes the connection once
 * sent; whatever the client sent after the request is read and dropped, unparsed.
 */
function closingResponse(req: IncomingMessage, socket: Duplex): ServerResponse {
  const res = new ServerResponse(req);
  res.assignSocket(socket as Socket);
  res.shouldKeepAlive = false;
  res.on('finish', () => {
    res.detachSocket(socket as Socket);
    socket.end();
    // Unread bytes at close would make the kernel reset the connection, answer and all.
    socket.resume();
  });
  return res;
}

/** The VM's 101 status line and headers as they came (header values are latin1 raw bytes). */
function responseHead(answer: IncomingMessage): Buffer {
  let text = `HTTP/${answer.httpVersion} ${answer.statusCode} ${answer.statusMessage}\r\n`;
  const raw = answer.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) text += `${raw[i]}: ${raw[i + 1]}\r\n`;
  return Buffer.from(`${text}\r\n`, 'latin1');
}
