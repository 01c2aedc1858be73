import type { Writable } from 'node:stream';
import type { ServerChannel } from 'ssh2';
import type { SocketBacklog } from './socket-backlog.js';

/** What the sessions of one connection know of its socket. */
export interface ConnectionWire {
  /** The output waiting for the client to read it. */
  backlog: SocketBacklog;
  /** Drops the connection at once (the client broke the protocol). */
  cut(): void;
}

/** The part of ssh2's channel state (not in its types) that says what the client may send. */
interface ChannelWindows {
  /** Bytes of data the server has let the client send and not received yet. */
  incoming: { window: number };
}

/**
 * Holds a channel to the limits SSH sets and ssh2 does not enforce on its own:
 * - Input: ssh2 drops data only when the window it granted is exactly 0, so a client that
 *   brings it to 1 byte and then sends a full packet has it go negative, and from then on all
 *   it sends is taken, and buffered when the session is not reading (a paused REPL). Data past
 *   the window is a protocol violation (RFC 4254 §5.2) that no real client commits: the
 *   connection is cut, and the data dropped.
 * - Output: a write to the channel completes once it left for the socket and the socket's
 *   backlog is under its mark (see {@link SocketBacklog}), not as soon as the client's window
 *   took it. So the channel's own backpressure (`write()` returning false, 'drain', its
 *   writable length) also holds back everything that writes to it — echo, command output, a
 *   VM's output piped to it — while the client is not reading its socket.
 */
export function guardChannel(channel: ServerChannel, wire: ConnectionWire): void {
  const windows = channel as unknown as ChannelWindows;
  const push = channel.push.bind(channel);
  let overran = false;
  channel.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (chunk !== null && (overran || windows.incoming.window < 0)) {
      if (!overran) wire.cut();
      overran = true;
      return false;
    }
    return push(chunk, encoding);
  };
  for (const stream of [channel, channel.stderr]) waitForBacklog(stream, wire.backlog);
}

function waitForBacklog(stream: Writable, backlog: SocketBacklog): void {
  const write = stream._write.bind(stream);
  stream._write = (chunk, encoding, done) =>
    write(chunk, encoding, (err?: Error | null) => {
      const below = backlog.belowMark();
      if (below === undefined) done(err);
      else void below.then(() => done(err));
    });
}
