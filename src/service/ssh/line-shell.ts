import { StringDecoder } from 'node:string_decoder';
import type { ServerChannel } from 'ssh2';
import { DEFAULTS } from '../config.js';
import { channelSink, finishChannel } from './channel-sink.js';
import { isLeaveCommand } from './leave-command.js';
import { Cancellation, runCommandLine } from './run-line.js';
import type { Interruptible, SessionContext } from './session-context.js';

/**
 * A shell session without a pty (`echo ls | ssh host`, `ssh -T host`): like `sh` reading a
 * script, it runs each input line as a command, in order, with no prompt and no echo, and
 * ends at the end of the input, at `exit`/`quit` or when the server stops, with the status of
 * the last command run. A line longer than the command-line limit is cut just past the limit,
 * so that it fails with the limit's own error instead of being held in memory whole.
 */
export function startLineShell(channel: ServerChannel, ctx: SessionContext): Interruptible {
  const sink = channelSink(channel, false);
  const utf8 = new StringDecoder('utf8');
  const lines: string[] = [];
  let partial = '';
  let skippingRestOfLine = false;
  let inputEnded = false;
  let running: AbortController | undefined;
  let lastExit = 0;
  let closed = false;

  const leave = (): void => {
    if (closed) return;
    closed = true;
    finishChannel(channel, lastExit);
  };

  // A loop, not a call per line: a flood of blank lines must not grow the stack.
  const next = (): void => {
    while (running === undefined && !closed) {
      const line = lines.shift();
      if (line === undefined) {
        if (inputEnded) leave();
        else channel.resume();
        return;
      }
      if (line.trim() === '') continue;
      if (isLeaveCommand(line)) return leave();
      run(line);
    }
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
        next();
      }),
    );
  };

  const take = (text: string): void => {
    const pieces = text.split('\n');
    const last = pieces.pop()!;
    for (const piece of pieces) {
      if (!skippingRestOfLine) lines.push((partial + piece).replace(/\r$/, ''));
      partial = '';
      skippingRestOfLine = false;
    }
    if (skippingRestOfLine) return;
    partial += last;
    if (Buffer.byteLength(partial) > DEFAULTS.bodyLimit) {
      lines.push(partial.slice(0, DEFAULTS.bodyLimit + 1));
      partial = '';
      skippingRestOfLine = true;
    }
  };

  channel.on('data', (chunk: Buffer) => {
    take(utf8.write(chunk));
    // Lines wait while a command runs: read no more input (the client then waits) until they
    // are all taken. What one chunk held is the most that ever waits.
    channel.pause();
    next();
  });
  channel.on('end', () => {
    take(utf8.end());
    if (partial !== '') lines.push(partial.replace(/\r$/, ''));
    partial = '';
    inputEnded = true;
    next();
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
