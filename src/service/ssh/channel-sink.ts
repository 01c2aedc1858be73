import type { Writable } from 'node:stream';
import type { ServerChannel } from 'ssh2';
import { CrlfTranslator } from './crlf.js';
import type { CommandSink } from './lobby/run-line.js';

/** A {@link CommandSink} on an SSH channel, which also knows where the cursor was left. */
interface ChannelSink extends CommandSink {
  /** True when the last byte written (to either stream) ended a line, or nothing was written. */
  readonly atLineStart: boolean;
  /**
   * Undefined when everything written so far went out within the client's window; else a
   * promise that settles once it has, or once the channel is gone. A session takes no more
   * input while it is pending: input that makes output (an echo, a redraw, a command's answer)
   * then waits for a client that does not read, instead of its output piling up in memory.
   */
  flushed(): Promise<void> | undefined;
}

/**
 * Writes to the channel's stdout and stderr (SSH extended data). On a session with a pty,
 * both go to stdout, as on sshd where a pty merges them: the client writes its stdout and
 * stderr separately and would not keep their order (an error could follow the next prompt);
 * and line feeds become `\r\n` as a real pty would make them. Writes after the client closed
 * the channel are dropped: a command may still be finishing when its client is gone. A write
 * the channel cannot take yet (the client's window is closed and its buffer full) returns a
 * promise that settles once it drained, or once the channel is gone.
 */
export function channelSink(channel: ServerChannel, pty: boolean): ChannelSink {
  const toStdout = new CrlfTranslator();
  const toStderr = pty ? toStdout : new CrlfTranslator();
  const stderr = pty ? channel : channel.stderr;
  const streams = pty ? [channel] : [channel, channel.stderr];
  const gone = new Promise<void>((resolve) => channel.once('close', resolve));
  /** Per stream, settles once its last write left the stream for the client's window. */
  const lastWrite = new Map<Writable, Promise<void>>();
  let atLineStart = true;
  const write = (
    stream: Writable,
    translator: CrlfTranslator,
    chunk: Buffer | string,
  ): Promise<void> | undefined => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (bytes.length === 0 || channel.destroyed || channel.writableEnded) return undefined;
    atLineStart = bytes[bytes.length - 1] === 0x0a;
    let sent!: () => void;
    lastWrite.set(stream, new Promise<void>((resolve) => (sent = resolve)));
    if (stream.write(pty ? translator.translate(bytes) : bytes, () => sent())) return undefined;
    return new Promise((resolve) => {
      const done = () => {
        stream.off('drain', done);
        resolve();
      };
      stream.on('drain', done);
      void gone.then(done);
    });
  };
  return {
    stdout: (chunk) => write(channel, toStdout, chunk),
    stderr: (chunk) => write(stderr, toStderr, chunk),
    get atLineStart() {
      return atLineStart;
    },
    flushed() {
      if (channel.destroyed) return undefined;
      const waiting = streams
        .filter((s) => s.writableLength > 0)
        .flatMap((s) => lastWrite.get(s) ?? []);
      if (waiting.length === 0) return undefined;
      return Promise.race([Promise.all(waiting).then(() => {}), gone]);
    },
  };
}

/** How a session's command ended: its exit status, or the signal that ended it (`TERM`). */
export type SessionExit = number | { signal: string };

/**
 * Sends the exit status (or `exit-signal`) and closes the channel, once; nothing happens if it
 * is already gone.
 */
export function finishChannel(channel: ServerChannel, exit: SessionExit): void {
  if (channel.destroyed || channel.writableEnded) return;
  if (typeof exit === 'number') channel.exit(exit);
  else channel.exit(exit.signal, false, '');
  channel.end();
}
