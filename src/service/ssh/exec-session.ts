import type { ServerChannel } from 'ssh2';
import { channelSink, finishChannel } from './channel-sink.js';
import { Cancellation, runCommandLine } from './run-line.js';
import type { Interruptible, SessionContext } from './session-context.js';
import type { ClientTerminal } from './shell-terminal.js';

const CTRL_C = 0x03;

/**
 * One-shot exec (`ssh host ls --json`): the command string is one command line for the
 * dispatcher, exactly as an /exec body; its output goes to the channel and the channel closes
 * with the command's exit status. There is no stdin: input is read and thrown away, except
 * that on a pty (`ssh -t`, given as `terminal`) a Ctrl-C byte cancels the command, and an
 * interactive command (`ssh -t host ssh <vm>`) gets the terminal. The client going away
 * cancels it too.
 */
export function runExec(
  channel: ServerChannel,
  command: string,
  terminal: ClientTerminal | undefined,
  ctx: SessionContext,
): Interruptible {
  const pty = terminal !== undefined;
  const controller = new AbortController();
  const sink = channelSink(channel, pty);
  const interrupt = (): void => {
    if (!controller.signal.aborted) controller.abort(new Cancellation('interrupted'));
  };
  channel.on('data', (chunk: Buffer) => {
    if (terminal?.inUse) return;
    if (pty && chunk.includes(CTRL_C) && !controller.signal.aborted) {
      sink.stdout('^C\n');
      interrupt();
    }
  });
  channel.on('close', () => {
    if (!controller.signal.aborted) controller.abort(new Cancellation('disconnected'));
  });
  const signal = AbortSignal.any([controller.signal, ctx.shutdown]);
  ctx.track(
    runCommandLine(ctx.env, ctx.fingerprint, command, sink, signal, terminal).then((exit) =>
      finishChannel(channel, exit),
    ),
  );
  return { interrupt };
}
