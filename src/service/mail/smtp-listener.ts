// The SMTP listener (SPEC §4b, `serve --smtp-listen`): mail for `*@<vm>.<vm-domain>` of a VM
// whose receiving is on goes into that VM's Maildir, delivered by a process inside the VM
// (VmMachines.deliverMail). Built on nodemailer's smtp-server, which parses the protocol;
// what is ours is the bounds on it: clients in all and per address, idle and whole-session
// time, recipients per message, and the message size, counted as it arrives.
import type { Server } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { ListenAddress, LogSink } from '../config.js';
import { clientAddressKey } from '../rules/client-address.js';
import type { Store } from '../store/index.js';
import type { VmMachines } from '../vm/index.js';
import { readBoundedMessage } from './bounded-message.js';
import { vmOfRecipient } from './recipient.js';

/** SPEC §4b: 1 MB per message at most (refused with 552 beyond). */
export const MAX_MESSAGE_BYTES = 1024 * 1024;
/** More files than this waiting in a VM's `new/` turns its receiving off (SPEC §4b). */
export const MAX_WAITING_FILES = 1000;

/** The bounds that keep hostile clients from holding the listener (tests give smaller ones). */
export interface SmtpLimits {
  /** Connections at once, in all. */
  clients: number;
  /** Connections at once from one client address. */
  clientsPerAddress: number;
  /** A connection that sends nothing this long is closed. */
  idleMs: number;
  /** A connection is closed this long after it opened, whatever it does. */
  sessionMs: number;
}

const DEFAULT_LIMITS: SmtpLimits = {
  clients: 64,
  clientsPerAddress: 8,
  idleMs: 30_000,
  sessionMs: 5 * 60_000,
};

/** Recipients of one message: mail for more is not for a handful of VMs. */
const MAX_RECIPIENTS = 20;

export interface SmtpDeps {
  store: Store;
  machines: VmMachines;
  vmDomain: string;
  log: LogSink;
}

/** The running SMTP listener. */
export interface SmtpListener {
  /** Where it listens (the port the OS chose for `:0`). */
  readonly address: ListenAddress;
  /** Stops accepting and ends open connections. */
  close(): Promise<void>;
}

/** An SMTP reply to a command: `code` is its status, the message its text. */
function reply(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/** Starts the listener on `listen`; rejects when it cannot listen there. */
export async function startSmtpListener(
  deps: SmtpDeps,
  listen: ListenAddress,
  limits: SmtpLimits = DEFAULT_LIMITS,
): Promise<SmtpListener> {
  const server = new SMTPServer({
    name: deps.vmDomain,
    banner: 'exectl mail for VMs',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    size: MAX_MESSAGE_BYTES,
    maxClients: limits.clients,
    maxRecipients: MAX_RECIPIENTS,
    socketTimeout: limits.idleMs,
    closeTimeout: 1_000,
    onRcptTo(address, _session, done) {
      done(receivingVm(deps, address.address) === undefined ? notHere(address.address) : null);
    },
    onData(stream, session, done) {
      void receive(deps, stream, session).then(
        (answer) => done(null, answer),
        (err: Error) => done(err),
      );
    },
  });
  server.on('error', (err) => deps.log(`smtp: ${err.message}`, 'warn'));
  boundConnections(server.server, limits);
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const bound = server.server.address();
  const port = typeof bound === 'object' && bound !== null ? bound.port : listen.port;
  return {
    address: { host: listen.host, port },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The VM `address` is a mailbox of, if it receives mail now. */
function receivingVm(deps: SmtpDeps, address: string) {
  const name = vmOfRecipient(address, deps.vmDomain);
  const vm = name === undefined ? undefined : deps.store.getVmByName(name);
  return vm !== undefined && deps.store.receivesEmail(vm.id) ? vm : undefined;
}

/** The one refusal for any address we take no mail for: no VM, or one not receiving. */
function notHere(address: string): Error {
  return reply(550, `5.1.1 <${address}>: no mailbox here (share receive-email <vm> on)`);
}

/**
 * Takes the message of `stream` and delivers it to each recipient's VM with its own
 * `Delivered-To` line; the answer to DATA. Any delivery that fails makes it a temporary
 * failure (451): the sender tries again, a duplicate rather than a lost message.
 */
async function receive(
  deps: SmtpDeps,
  stream: SMTPServerDataStream,
  session: SMTPServerSession,
): Promise<string> {
  const message = await readBoundedMessage(stream, MAX_MESSAGE_BYTES);
  if (message.exceeded) {
    throw reply(552, `5.3.4 message over ${MAX_MESSAGE_BYTES} bytes: not delivered`);
  }
  let failed = 0;
  for (const { address } of session.envelope.rcptTo) {
    const vm = receivingVm(deps, address);
    if (vm === undefined) continue;
    try {
      const copy = Buffer.concat([Buffer.from(`Delivered-To: ${address}\n`), message.bytes]);
      const waiting = await deps.machines.deliverMail(vm, copy);
      deps.log(`smtp: delivered ${copy.length} bytes to vm "${vm.name}"`, 'info');
      if (waiting > MAX_WAITING_FILES) {
        deps.store.setReceiveEmail(vm.id, false);
        deps.log(
          `smtp: vm "${vm.name}" has ${waiting} messages waiting in ~/Maildir/new: receiving turned off`,
          'warn',
        );
      }
    } catch (err) {
      failed++;
      const why = err instanceof Error ? err.message : String(err);
      deps.log(`smtp: vm "${vm.name}" did not take a message: ${why}`, 'warn');
    }
  }
  if (failed > 0) throw reply(451, '4.3.0 a VM could not take the message now: try again later');
  return 'delivered';
}

/**
 * Holds each client address to its share of connections and every connection to the whole
 * session's time, on the listening socket smtp-server made: its own bounds are the total and
 * the idle time only, so one address could otherwise take every slot, or trickle a byte a
 * minute forever.
 */
function boundConnections(listener: Server, limits: SmtpLimits): void {
  const perAddress = new Map<string, number>();
  listener.on('connection', (socket) => {
    const key = clientAddressKey(socket.remoteAddress);
    const count = (perAddress.get(key) ?? 0) + 1;
    perAddress.set(key, count);
    const deadline = setTimeout(() => socket.destroy(), limits.sessionMs).unref();
    socket.once('close', () => {
      clearTimeout(deadline);
      const left = (perAddress.get(key) ?? 1) - 1;
      if (left === 0) perAddress.delete(key);
      else perAddress.set(key, left);
    });
    if (count > limits.clientsPerAddress) {
      socket.end('421 4.7.0 too many connections from your address: try again later\r\n');
      socket.destroySoon();
    }
  });
}
