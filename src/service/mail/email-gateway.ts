// The email gateway every machine VM finds at http://169.254.169.254 (SPEC §4b): answered by
// the server itself, on connections the VM opens inside its own network (vm/'s link-local
// listener), so the VM is known by its connection and never by anything it says. `POST
// /gateway/email/send` keeps the message in the outbox (the emulator sends nothing out); every
// other request is 404.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { commandFailed, ExectlError } from '../../errors.js';
import type { LogSink } from '../config.js';
import { sendError, writeJson } from '../http/error-funnel.js';
import { markVmConnection, vmOriginOf } from '../rules/client-address.js';
import { RateLimiter, rateLimited, type RateLimit } from '../rules/rate-limit.js';
import { sameEmail } from '../rules/validate.js';
import type { Store, VmRecord } from '../store/index.js';
import type { VmOrigin } from '../vm/contract.js';
import { MAX_SEND_BYTES, parseSendRequest } from './send-request.js';

/** The gateway's one path. */
export const SEND_PATH = '/gateway/email/send';

/** Per VM: 10 messages at once, one more every 6 minutes ("wait a few hours" after a flood). */
const SEND_RATE: RateLimit = { capacity: 10, refillMs: 60 * 60_000 };

/** A request that sends nothing within this long is cut off. */
const REQUEST_TIMEOUT_MS = 10_000;

export interface EmailGatewayDeps {
  store: Store;
  log: LogSink;
  /** The per-VM bucket (tests give a small one). */
  rate?: RateLimit;
}

/** The gateway as vm/ hands it connections (VmsListener), and how to stop it. */
export interface EmailGateway {
  accept(socket: Socket, origin: VmOrigin): void;
  close(): Promise<void>;
}

/** Makes the gateway; it listens nowhere on the host: VMs' connections are handed to it. */
export function createEmailGateway(deps: EmailGatewayDeps): EmailGateway {
  const limiter = new RateLimiter(deps.rate ?? SEND_RATE);
  const server = createServer({ requestTimeout: REQUEST_TIMEOUT_MS }, (req, res) => {
    void answer(deps, limiter, req, res).catch((err: unknown) => sendError(res, err));
  });
  server.headersTimeout = REQUEST_TIMEOUT_MS;
  let open = true;
  return {
    accept(socket, origin) {
      markVmConnection(socket, origin);
      if (open) server.emit('connection', socket);
      else socket.destroy();
    },
    close: () => {
      open = false;
      server.closeAllConnections();
      return Promise.resolve();
    },
  };
}

async function answer(
  deps: EmailGatewayDeps,
  limiter: RateLimiter,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const vm = vmOfConnection(deps.store, req.socket);
  if (req.url !== SEND_PATH || req.method !== 'POST' || vm === undefined) {
    throw new ExectlError('not_found', 'not found: the gateway answers POST /gateway/email/send');
  }
  const request = parseSendRequest(await readBody(req));
  const owner = deps.store.getAccount(vm.accountId);
  if (owner === undefined || !sameEmail(request.to, owner.email)) {
    throw commandFailed('"to" must be the address of the VM\'s owner (see the reflection /email)');
  }
  const decision = limiter.take(`vm:${vm.id}`);
  if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds);
  deps.store.addOutboxMessage({ accountId: owner.id, vmName: vm.name, ...request });
  deps.log(`mail: vm "${vm.name}" sent its owner a message (outbox)`, 'info');
  writeJson(res, 200, { success: true }, {});
}

/** The VM that opened `socket` inside its own network (rules/client-address.ts). */
function vmOfConnection(store: Store, socket: Socket): VmRecord | undefined {
  const origin = vmOriginOf(socket);
  return origin === undefined ? undefined : store.getVm(origin.vmId);
}

/** The request's body as text, refused past {@link MAX_SEND_BYTES}. */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_SEND_BYTES) return void chunks.push(chunk);
      req.pause();
      reject(new ExectlError('body_too_large', `the body is over ${MAX_SEND_BYTES} bytes`));
    });
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}
