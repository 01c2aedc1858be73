import type { ServerChannel } from 'ssh2';
import { DEFAULTS } from '../config.js';
import { channelSink, finishChannel } from './channel-sink.js';
import { LineEditor } from './line-editor.js';
import { isLeaveCommand } from './leave-command.js';
import { Cancellation, runCommandLine } from './run-line.js';
import type { Interruptible, SessionContext } from './session-context.js';
import type { ClientTerminal } from './shell-terminal.js';
import { KeyDecoder, type Key } from './terminal-keys.js';

export const PROMPT = 'exectl> ';
const HISTORY_SIZE = 500;
/** Keys typed while a command runs wait for the next prompt, up to about this many characters. */
const MAX_TYPE_AHEAD = 65_536;

/**
 * The interactive session of `ssh -t host`: a greeting, then a prompt with line editing and
 * history (see {@link LineEditor}); each line runs through the dispatcher as one command.
 * `exit`, `quit` or Ctrl-D on an empty line end the session with status 0. Ctrl-C abandons
 * the line being typed, or cancels the running command; other keys typed while a command
 * runs are kept and replayed at the next prompt, as a shell's type-ahead. `ssh <vm>` alone
 * hands the terminal to a shell in the VM until it exits.
 */
export function startRepl(
  channel: ServerChannel,
  ctx: SessionContext,
  terminal: ClientTerminal,
): Interruptible {
  const sink = channelSink(channel, true);
  const editor = new LineEditor({
    prompt: PROMPT,
    maxLineBytes: DEFAULTS.bodyLimit,
    historySize: HISTORY_SIZE,
  });
  const decoder = new KeyDecoder();
  const typeAhead: Key[] = [];
  let typeAheadSize = 0;
  let running: AbortController | undefined;
  let closed = false;

  const write = (text: string): void => void sink.stdout(text);
  const leave = (): void => {
    if (closed) return;
    closed = true;
    finishChannel(channel, 0);
  };
  const interrupt = (): void => {
    if (running === undefined || running.signal.aborted) return;
    write('^C\n');
    typeAhead.length = 0;
    typeAheadSize = 0;
    running.abort(new Cancellation('interrupted'));
  };

  const submit = (line: string): void => {
    if (line.trim() === '') return void write(editor.begin());
    if (isLeaveCommand(line)) return leave();
    const controller = new AbortController();
    running = controller;
    const signal = AbortSignal.any([controller.signal, ctx.shutdown]);
    ctx.track(
      runCommandLine(ctx.env, ctx.fingerprint, line, sink, signal, terminal).then(() => {
        running = undefined;
        if (closed) return;
        // Output that did not end its line (`printf hi`) must not carry the prompt.
        if (!sink.atLineStart) write('\n');
        if (ctx.shutdown.aborted) return leave();
        write(editor.begin());
        while (running === undefined && !closed && typeAhead.length > 0) {
          press(typeAhead.shift()!);
        }
        typeAheadSize = 0;
      }),
    );
  };

  const press = (key: Key): void => {
    const update = editor.press(key);
    write(update.echo);
    if (update.eof) leave();
    else if (update.cancelled) write(editor.begin());
    else if (update.line !== undefined) submit(update.line);
  };

  channel.on('data', (chunk: Buffer) => {
    if (terminal.inUse) return;
    for (const key of decoder.feed(chunk)) {
      if (closed) return;
      if (running === undefined) press(key);
      else if ('key' in key && key.key === 'interrupt') interrupt();
      else if (typeAheadSize < MAX_TYPE_AHEAD) {
        typeAhead.push(key);
        typeAheadSize += 'text' in key ? key.text.length : 1;
      }
    }
  });
  const onShutdown = (): void => {
    // A running command reports the shutdown itself and then ends the session.
    if (running !== undefined || closed) return;
    write('\nthe server is shutting down\n');
    leave();
  };
  ctx.shutdown.addEventListener('abort', onShutdown, { once: true });
  channel.on('close', () => {
    closed = true;
    ctx.shutdown.removeEventListener('abort', onShutdown);
    running?.abort(new Cancellation('disconnected'));
  });

  write(`exectl: signed in as ${ctx.email}\n`);
  write('Type "help" for the commands, "exit" or Ctrl-D to leave.\n');
  write(editor.begin());
  return { interrupt };
}
