// An SSH client that breaks the rules on purpose: ssh2's Client, with its protocol object and
// socket reached directly, to send what no real client sends (data past the window it was
// granted; window adjusts while it reads nothing).
import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import ssh2, { type ClientChannel } from 'ssh2';
import type { TestService } from '../../helpers/service.js';

/** The parts of ssh2's client protocol (not in its types) an adversary uses. */
interface RawProtocol {
  channelData(recipient: number, data: Buffer): void;
  channelWindowAdjust(recipient: number, amount: number): void;
  rekey(): void;
}

export interface RawClient {
  client: ssh2.Client;
  /** Sends packets as they are, whatever the windows say. */
  protocol: RawProtocol;
  /** The TCP connection: pausing it stops the client reading anything the server sends. */
  socket: Socket;
  /** True once the connection is gone. */
  readonly closed: boolean;
}

/** Connects to the service's SSH listener as its owner. */
export function connectRaw(svc: TestService): Promise<RawClient> {
  return connectRawTo(svc.service.endpoints.ssh!.port, svc.owner.key.path);
}

/** Connects to an SSH listener on 127.0.0.1 with the private key at `keyPath`. */
export async function connectRawTo(port: number, keyPath: string): Promise<RawClient> {
  const client = new ssh2.Client();
  let closed = false;
  client.on('close', () => (closed = true));
  // The server cutting the connection is what some tests wait for.
  client.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    client.once('ready', resolve).once('error', reject);
    void readFile(keyPath).then((privateKey) =>
      client.connect({
        host: '127.0.0.1',
        port,
        username: 'anyone',
        privateKey,
        readyTimeout: 60_000,
      }),
    );
  });
  const internals = client as unknown as { _protocol: RawProtocol; _sock: Socket };
  return {
    client,
    protocol: internals._protocol,
    socket: internals._sock,
    get closed() {
      return closed;
    },
  };
}

/** Opens a shell without a pty (as `ssh -T`); its output is left unread unless read. */
export function openShell(client: ssh2.Client): Promise<ClientChannel> {
  return new Promise((resolve, reject) =>
    client.shell(false, (err, stream) => (err ? reject(err) : resolve(stream))),
  );
}

/** The server's id for `stream`, which raw packets for it are addressed to. */
export function serverChannelId(stream: ClientChannel): number {
  return (stream as unknown as { outgoing: { id: number } }).outgoing.id;
}

/** Starts a key re-exchange from the client's side; `done` once it completed. */
export function rekey(raw: RawClient, done: () => void): void {
  raw.client.once('handshake', done);
  raw.protocol.rekey();
}
