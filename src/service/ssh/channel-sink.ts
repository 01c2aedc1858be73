import type { Writable } from 'node:stream';
import type { ServerChannel } from 'ssh2';
import { CrlfTranslator } from './crlf.js';
import type { CommandSink } from './run-line.js';

/** A {@link CommandSink} on an SSH channel, which also knows where the cursor was left. */
interface ChannelSink extends CommandSink {
  /** True when the last byte written (to either stream) ended a line, or nothing was written. */
  readonly atLineStart: boolean;
}

/**
 * Writes to the channel's stdout and stderr (SSH extended data). On a session with a pty,
 * both go to stdout, as on sshd where a pty merges them: the client writes its stdout and
 * stderr separately and would not keep their order (an error could follow the next prompt);
 * and line feeds become `\r\n` as a real pty would make them. Writes after the client closed
 * the channel are dropped: a command may still be finishing when its client is gone. A write
 * the channel cannot take yet (the client's window is closed) returns a promise that settles
 * once it drained, or once the channel is gone.
 */
export function channelSink(channel: ServerChannel, pty: boolean): ChannelSink {
  const toStdout = new CrlfTranslator();
  const toStderr = pty ? toStdout : new CrlfTranslator();
  const stderr = pty ? channel : channel.stderr;
  let atLineStart = true;
  const write = (
    stream: Writable,
    translator: CrlfTranslator,
    chunk: Buffer | string,
  ): Promise<void> | undefined => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (bytes.length === 0 || channel.destroyed || channel.writableEnded) return undefined;
    atLineStart = bytes[bytes.length - 1] === 0x0a;
    if (stream.write(pty ? translator.translate(bytes) : bytes)) return undefined;
    return new Promise((resolve) => {
      const done = () => {
        stream.off('drain', done);
        channel.off('close', done);
        resolve();
      };
      stream.on('drain', done);
      channel.on('close', done);
    });
  };
  return {
    stdout: (chunk) => write(channel, toStdout, chunk),
    stderr: (chunk) => write(stderr, toStderr, chunk),
    get atLineStart() {
      return atLineStart;
    },
  };
}

/** Sends the exit status and closes the channel, once; nothing happens if it is already gone. */
export function finishChannel(channel: ServerChannel, exitStatus: number): void {
  if (channel.destroyed || channel.writableEnded) return;
  channel.exit(exitStatus);
  channel.end();
}
