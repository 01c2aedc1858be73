// Upgrades (WebSocket). No WebSocket code is needed: the VM proxy sends the upgrade request to
// the VM's server as received (headers adjusted) and the VM's server accepts or refuses it
// itself (proxy-exchange.ts). Only a 101 joins the two sockets, after which every byte is
// relayed untouched; any other answer is an ordinary one, and the proxy parses what follows as
// requests of their own (each checked and filtered). On a connection node:http serves (the
// service's own endpoints) every upgrade is refused here.
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { sendError, type FunnelOutcome } from '../http/error-funnel.js';

/**
 * Joins `client` to `upstream` after the VM's 101: `toVm` (what the client sent past the
 * upgrade request) and `toClient` (what the VM sent past its 101) first, then every byte both
 * ways, each side paced by the other (pipe). Resolves once either side closed (the other is
 * then cut).
 */
export function joinTunnel(
  client: Socket,
  upstream: Socket,
  toVm: Buffer,
  toClient: Buffer,
): Promise<void> {
  return new Promise((resolve) => {
    if (toClient.length > 0) client.write(toClient);
    if (toVm.length > 0) upstream.write(toVm);
    upstream.pipe(client);
    client.pipe(upstream);
    client.resume();
    upstream.resume();
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('close', () => {
      client.destroy();
      resolve();
    });
    client.on('close', () => {
      upstream.destroy();
      resolve();
    });
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
