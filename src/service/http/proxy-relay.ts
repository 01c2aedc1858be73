// One proxied HTTP exchange: the request streams to the VM's server, the answer streams back.
import { request, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { ExectlError } from '../../errors.js';
import type { VmPortTarget } from '../vm/types.js';
import { headersFromVm } from './proxy-headers.js';

/** Where a VM's server is reached: a relay socket into its network, or the host's loopback. */
export interface VmUpstream {
  vmName: string;
  port: number;
  to: VmPortTarget;
}

/** The request for `req` to the VM's server, with `headers`, on a connection of its own. */
export function requestToVm(
  req: IncomingMessage,
  target: VmUpstream & { headers: string[] },
): ClientRequest {
  const { to } = target;
  return request({
    ...('socketPath' in to ? { socketPath: to.socketPath } : { host: to.host, port: to.port }),
    method: req.method,
    path: req.url,
    headers: target.headers,
    // One connection per request: a pooled connection the VM's server closed while idle
    // would turn a healthy request into a spurious 502.
    agent: false,
  });
}

/** The log status of an exchange that ended before any answer (nginx: "client closed request"). */
export const CLIENT_CLOSED = 499;

/** The 502 for a VM whose server cannot be reached or gave no answer. */
export function vmNotAnswering(vmName: string, port: number, cause: unknown): ExectlError {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return new ExectlError('bad_gateway', `vm "${vmName}" is not answering on port ${port}`, {
    hint: `start a server on port ${port} inside the VM, or change the port with \`share port ${vmName} <port>\``,
    logDetail: code ?? String(cause),
  });
}

/**
 * Sends `req` with `headers` to the VM's server on `port` and streams its answer into `res`,
 * both bodies piped without buffering. Resolves with the status sent once the exchange is over
 * (the client hanging up ends it too, and the upstream request with it).
 *
 * @throws ExectlError 502 when the VM's server fails before answering; a failure after the
 *   status went out cuts the client's connection instead, since the status cannot change.
 */
export function relayToVm(
  req: IncomingMessage,
  res: ServerResponse,
  target: VmUpstream & { headers: string[] },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const upstream = requestToVm(req, target);
    upstream.on('response', (answer) => {
      res.writeHead(
        answer.statusCode ?? 502,
        answer.statusMessage,
        headersFromVm(answer.rawHeaders),
      );
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (err) => {
      if (res.headersSent) res.destroy();
      else reject(vmNotAnswering(target.vmName, target.port, err));
    });
    res.on('close', () => {
      upstream.destroy();
      // Nothing sent means the client left first.
      resolve(res.headersSent ? res.statusCode : CLIENT_CLOSED);
    });
    req.pipe(upstream);
  });
}
