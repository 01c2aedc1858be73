import { StringDecoder } from 'node:string_decoder';
import type { ServerChannel } from 'ssh2';
import { DEFAULTS } from '../../config.js';
import { channelSink, finishChannel, type SessionExit } from '../channel-sink.js';
import { isLeaveCommand } from './leave-command.js';
import { Cancellation, runCommandLine } from './run-line.js';
import type { Interruptible, SessionContext } from '../session-context.js';

/** Lines handled in one go before other connections get their turn (blank lines are cheap). */
const LINES_PER_TURN = 1024;

/**
 * A shell session without a pty (`echo ls | ssh host`, `ssh -T host`): like `sh` reading a
 * script, it runs each input line as a command, in order, with no prompt and no echo, and
 * ends at the end of the input, at `exit`/`quit` or when the server stops, with the status of
 * the last command run. A line longer than the command-line limit is cut just past the limit,
 * so that it fails with the limit's own error instead of being held in memory whole.
 *
 * Input is read one chunk at a time: the channel is paused until every line of the chunk was
 * handled, so the client's window holds the rest. A line waits until the client took the
 * output of the one before, and a run of lines yields to the event loop every
 * {@link LINES_PER_TURN}: a flood of lines costs time in proportion to its size, and shares it.
 */
export function startLineShell(channel: ServerChannel, ctx: SessionContext): Interruptible {
  const sink = channelSink(channel, false);
  const utf8 = new StringDecoder('utf8');
  /** Lines read and not handled yet, from `next` on. */
  let lines: string[] = [];
  let next = 0;
  let partial = '';
  let partialBytes = 0;
  let skippingRestOfLine = false;
  let inputEnded = false;
  let running: AbortController | undefined;
  let waiting = false;
  let lastExit: SessionExit = 0;
  let closed = false;

  const leave = (): void => {
    if (closed) return;
    closed = true;
    finishChannel(channel, lastExit);
  };

  const handleLines = (): void => {
    let handled = 0;
    while (running === undefined && !closed && !waiting) {
      if (next === lines.length) {
        lines = [];
        next = 0;
        if (inputEnded) leave();
        else channel.resume();
        return;
      }
      const behind = sink.flushed();
      if (behind !== undefined) return waitFor(behind);
      if (++handled > LINES_PER_TURN) return waitFor(new Promise((ok) => setImmediate(ok)));
      const line = lines[next++]!;
      if (line.trim() === '') continue;
      if (isLeaveCommand(line)) return leave();
      run(line);
    }
  };
  const waitFor = (turn: Promise<unknown>): void => {
    waiting = true;
    void turn.then(() => {
      waiting = false;
      handleLines();
    });
  };

  const run = (line: string): void => {
    const controller = new AbortController();
    running = controller;
    const signal = AbortSignal.any([controller.signal, ctx.shutdown]);
    ctx.track(
      runCommandLine(ctx.env, ctx.fingerprint, line, sink, signal).then((exit) => {
        running = undefined;
        lastExit = exit;
        if (ctx.shutdown.aborted) return leave();
        // A command that answers at once (help) makes no turn of the event loop of its own:
        // without one here, a client that reads fast could run line after line for as long
        // as its input lasts while nobody else is served.
        setImmediate(handleLines);
      }),
    );
  };

  const endLine = (text: string): void => {
    lines.push(text.replace(/\r$/, ''));
    partial = '';
    partialBytes = 0;
  };
  const take = (text: string): void => {
    const pieces = text.split('\n');
    const last = pieces.pop()!;
    for (const piece of pieces) {
      if (!skippingRestOfLine) endLine(partial + piece);
      skippingRestOfLine = false;
    }
    if (skippingRestOfLine) return;
    partial += last;
    partialBytes += Buffer.byteLength(last);
    if (partialBytes > DEFAULTS.bodyLimit) {
      endLine(partial.slice(0, DEFAULTS.bodyLimit + 1));
      skippingRestOfLine = true;
    }
  };

  channel.on('data', (chunk: Buffer) => {
    take(utf8.write(chunk));
    channel.pause();
    handleLines();
  });
  channel.on('end', () => {
    take(utf8.end());
    if (partial !== '') endLine(partial);
    inputEnded = true;
    handleLines();
  });
  // A running command reports the shutdown itself and then ends the session.
  const onShutdown = (): void => void (running === undefined && leave());
  ctx.shutdown.addEventListener('abort', onShutdown, { once: true });
  channel.on('close', () => {
    closed = true;
    ctx.shutdown.removeEventListener('abort', onShutdown);
    running?.abort(new Cancellation('disconnected'));
  });
  return {
    interrupt: () => running?.abort(new Cancellation('interrupted')),
  };
}
