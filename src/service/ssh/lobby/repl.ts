import type { ServerChannel } from 'ssh2';
import { DEFAULTS } from '../../config.js';
import { channelSink, finishChannel } from '../channel-sink.js';
import { LineEditor } from './line-editor.js';
import { isLeaveCommand } from './leave-command.js';
import { Cancellation, runCommandLine } from './run-line.js';
import type { Interruptible, SessionContext } from '../session-context.js';
import type { ClientTerminal } from '../shell-terminal.js';
import { KeyDecoder, type Key } from './terminal-keys.js';

export const PROMPT = 'exectl> ';
/**
 * Lines kept for Up/Down: at most this many, and at most {@link HISTORY_BYTES} in all, so that
 * a session's history stays small whatever is typed into it (a line may be as long as a
 * command line, 64 KiB: four such lines fill it).
 */
const HISTORY_SIZE = 500;
const HISTORY_BYTES = 256 * 1024;
/** Echo written in one go before other connections get their turn: a few long redraws. */
const ECHO_PER_TURN = 256 * 1024;
/** Keys typed while a command runs wait for the next prompt, up to about this many characters. */
const MAX_TYPE_AHEAD = 65_536;

/**
 * The interactive session of `ssh -t host`: a greeting, then a prompt with line editing and
 * history (see {@link LineEditor}); each line runs through the dispatcher as one command.
 * `exit`, `quit` or Ctrl-D on an empty line end the session with status 0. Ctrl-C abandons
 * the line being typed, or cancels the running command; other keys typed while a command
 * runs are kept and replayed at the next prompt, as a shell's type-ahead. `ssh <vm>` alone
 * hands the terminal to a shell in the VM until it exits.
 *
 * Keys are handled one at a time, each only once the client took the echo of the one before
 * (a redraw of a long line is 64 KiB for three bytes typed): while it has not, input is paused
 * and the client's own window makes it wait, so a client that types without reading costs the
 * server one key's echo, not the echo of everything it typed.
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
    historyBytes: HISTORY_BYTES,
  });
  const decoder = new KeyDecoder();
  /**
   * Keys read and not handled yet, from `next` on: at most one read of input (the channel is
   * paused until they are handled), after the type-ahead when a command ended.
   */
  let keys: Key[] = [];
  let next = 0;
  let typeAhead: Key[] = [];
  let typeAheadSize = 0;
  let running: AbortController | undefined;
  let waiting = false;
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
    typeAhead = [];
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
        keys = typeAhead.concat(keys.slice(next));
        next = 0;
        typeAhead = [];
        typeAheadSize = 0;
        handleKeys();
      }),
    );
  };

  /** Handles one key; returns the size of its echo. */
  const press = (key: Key): number => {
    const update = editor.press(key);
    write(update.echo);
    if (update.eof) leave();
    else if (update.cancelled) write(editor.begin());
    else if (update.line !== undefined) submit(update.line);
    return update.echo.length;
  };

  /** While a command runs, keys make no output: Ctrl-C cancels it, others wait for the prompt. */
  const hold = (key: Key): void => {
    if ('key' in key && key.key === 'interrupt') interrupt();
    else if (typeAheadSize < MAX_TYPE_AHEAD) {
      typeAhead.push(key);
      typeAheadSize += 'text' in key ? key.text.length : 1;
    }
  };

  const handleKeys = (): void => {
    let echoed = 0;
    while (!closed && !waiting && next < keys.length) {
      if (running !== undefined) {
        hold(keys[next++]!);
        continue;
      }
      const behind = sink.flushed();
      if (behind !== undefined) return waitFor(behind);
      // The client's window can take a few long redraws at once: other sessions go between.
      if (echoed > ECHO_PER_TURN) return waitFor(new Promise((ok) => setImmediate(ok)));
      echoed += press(keys[next++]!);
    }
    if (next < keys.length) return;
    keys = [];
    next = 0;
    // An interactive program reads the channel itself while it runs.
    if (!closed && !terminal.inUse) channel.resume();
  };
  /** Reads no more input until `turn`: the keys already read wait with the rest. */
  const waitFor = (turn: Promise<unknown>): void => {
    waiting = true;
    channel.pause();
    void turn.then(() => {
      waiting = false;
      handleKeys();
    });
  };

  channel.on('data', (chunk: Buffer) => {
    if (terminal.inUse) return;
    keys = keys.slice(next).concat(decoder.feed(chunk));
    next = 0;
    handleKeys();
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
