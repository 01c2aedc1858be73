import type { ServerChannel } from 'ssh2';
import { channelSink, finishChannel } from '../channel-sink.js';
import { Cancellation, runCommandLine, type ClientPipes } from './run-line.js';
import type { Interruptible, SessionContext } from '../session-context.js';
import type { ClientTerminal } from '../shell-terminal.js';

const CTRL_C = 0x03;

/**
 * One-shot exec (`ssh host ls --json`): the command string is one command line for the
 * dispatcher, exactly as an /exec body; its output goes to the channel and the channel closes
 * with the command's exit status. Without a pty, `ssh <vm> <command>` gets the channel's
 * stdin, stdout and stderr as an SSH session into the VM would (`ssh host ssh web 'cat > f' <
 * f`); every other command reads no input, and it is thrown away. On a pty (`ssh -t`, given as
 * `terminal`) input is a Ctrl-C byte that cancels the command, or the terminal of an
 * interactive command (`ssh -t host ssh <vm>`). The client going away cancels it too.
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
  // Without a pty nothing reads the channel here: the command takes its input, or the line's
  // runner throws it away (run-line.ts).
  const pipes: ClientPipes | undefined = pty
    ? undefined
    : { input: channel, output: channel, errors: channel.stderr };
  if (pty) {
    channel.on('data', (chunk: Buffer) => {
      if (terminal.inUse) return;
      if (chunk.includes(CTRL_C) && !controller.signal.aborted) {
        void sink.stdout('^C\n');
        interrupt();
      }
    });
  }
  channel.on('close', () => {
    if (!controller.signal.aborted) controller.abort(new Cancellation('disconnected'));
  });
  const signal = AbortSignal.any([controller.signal, ctx.shutdown]);
  ctx.track(
    runCommandLine(ctx.env, ctx.fingerprint, command, sink, signal, terminal, pipes).then((exit) =>
      finishChannel(channel, exit),
    ),
  );
  return { interrupt };
}
