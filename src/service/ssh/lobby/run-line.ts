import { parseSuggestions, SUGGESTIONS_HEADER, withSuggestions } from '../../../did-you-mean.js';
import { publicFailure } from '../../../errors.js';
import type { LogSink } from '../../config.js';
import { admit, type CommandEnvironment } from '../../dispatch/admit.js';
import type { DispatchResult } from '../../dispatch/dispatcher.js';
import { lexCommandLine } from '../../../shell-words.js';
import { renderJson } from '../../dispatch/render.js';
import { renderText } from '../../../text-views/generic.js';
import { stopWhenAborted } from '../../dispatch/stop.js';
import { newLogEntry, runLogged, type RequestLogEntry } from '../../request-log.js';
import type { SessionExit } from '../channel-sink.js';
import { sshPrincipal } from '../principal.js';
import { inputReader } from './input-reader.js';
import type { ClientTerminal } from '../shell-terminal.js';

/**
 * Where one command writes: the SSH channel's stdout and stderr. A write returns a promise
 * when the client is behind (its window is closed): a streaming producer waits for it.
 */
export interface CommandSink {
  stdout(chunk: Buffer | string): void | Promise<void>;
  stderr(chunk: Buffer | string): void | Promise<void>;
}

/**
 * The client's streams of an exec request without a pty: stdin, stdout and stderr apart. A
 * command that can read input gets them all (`ssh <vm> <command>`) or its stdin
 * (`defaults write` without a value, through `ctx.readInput`); any other leaves stdin unread,
 * and it is thrown away.
 */
export interface ClientPipes {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  errors: NodeJS.WritableStream;
}

/** What every SSH command needs besides its line: shared by all connections. */
export interface SshCommandEnvironment extends CommandEnvironment {
  log: LogSink;
}

/**
 * The reason a front end aborts a running command with: the user pressed Ctrl-C, the client
 * went away, or the server is stopping. It is not a failure of the command.
 */
export class Cancellation {
  constructor(readonly why: 'interrupted' | 'disconnected' | 'shutdown') {}
}

/** Exit status of a command the user interrupted, as a shell reports SIGINT (128 + 2). */
const INTERRUPTED_EXIT = 130;
/** Logged for a cancelled command: the status proxies use for "client closed the request". */
const CANCELLED_STATUS = 499;

interface Outcome {
  exit: SessionExit;
  status: number;
  detail?: string;
}

/**
 * Runs one command line for the key `fingerprint` exactly as /exec would — key still
 * registered (401), then the admission every front end shares (dispatch/admit.ts: rate limit,
 * line checks, dispatcher) — and writes the answer: readable text, or JSON with `--json`; raw
 * bytes as they come for `ssh <vm> ...`, or, given the client's `pipes` (an exec without a
 * pty), that command as an SSH session into the VM runs it (stdin forwarded, stderr apart, no
 * deadline: SPEC §6a); an interactive program (`ssh <vm>` alone) on `terminal`, refused (422)
 * without one; `error: <message>` on stderr for a failure. Logs one line. Resolves with the
 * SSH exit status: 0 on success, the VM command's own status (or signal) for `ssh <vm>`, the
 * catalogue's exit code for a failure, {@link INTERRUPTED_EXIT} when cancelled. Never rejects.
 */
export async function runCommandLine(
  env: SshCommandEnvironment,
  fingerprint: string,
  line: string,
  sink: CommandSink,
  signal: AbortSignal,
  terminal?: ClientTerminal,
  pipes?: ClientPipes,
): Promise<SessionExit> {
  const entry = newLogEntry('ssh');
  entry.fingerprint = fingerprint;
  let exit: SessionExit = 0;
  const work = async (): Promise<number> => {
    const principal = sshPrincipal(env.deps.store, fingerprint);
    env.deps.store.recordKeyUse(fingerprint);
    const result = await admit(env, {
      principal,
      line,
      noun: 'command line',
      entry,
      stopWhen: stopWhenAborted(signal),
      ...(pipes === undefined ? {} : { readInput: inputReader(pipes.input) }),
    });
    const outcome = await writeResult(result, sink, signal, terminal, pipes, entry);
    exit = outcome.exit;
    return outcome.status;
  };
  await runLogged(env.log, entry, work, (err) => {
    const outcome = reportFailure(err, line, sink, widthOf(terminal));
    exit = outcome.exit;
    return outcome;
  });
  return exit;
}

async function writeResult(
  result: DispatchResult,
  sink: CommandSink,
  signal: AbortSignal,
  terminal: ClientTerminal | undefined,
  pipes: ClientPipes | undefined,
  entry: RequestLogEntry,
): Promise<Outcome> {
  const { output } = result;
  if (output.kind === 'stream' && output.piped !== undefined && pipes !== undefined) {
    // Logged as a session into the VM is (vm-session.ts): the VM, what ran, how it ended.
    entry.session = { vm: output.vm, kind: 'exec', exit: null };
    const ended = await output.piped({ ...pipes, signal });
    const failed = ended.exitCode !== 0 || ended.signal !== undefined;
    const exit = ended.signal === undefined ? ended.exitCode : { signal: ended.signal };
    entry.session.exit = ended.signal ?? ended.exitCode;
    return { exit, status: failed ? 422 : 200 };
  }
  // Nothing reads the client's input: it is thrown away as it comes, as it always was.
  pipes?.input.resume();
  if (output.kind === 'json') {
    // A sink's promise only says the client took the bytes (it never rejects); the session
    // waits for that itself before it reads more input (channel-sink.ts `flushed`).
    void sink.stdout(
      result.json
        ? renderJson(output.data)
        : renderText(output.data, result.textRenderer, widthOf(terminal)),
    );
    return { exit: 0, status: 200 };
  }
  let exitCode: number;
  if (output.kind === 'stream') {
    ({ exitCode } = await output.start({ write: (chunk) => sink.stdout(chunk) }));
  } else if (terminal === undefined) {
    throw output.refusal;
  } else {
    ({ exitCode } = await terminal.run(output, signal));
  }
  return { exit: exitCode, status: exitCode === 0 ? 200 : 422 };
}

/**
 * The columns readable tables fit: the client's pty, as its latest window change says; none
 * without a pty (output piped through `ssh host ls`), where nothing is cut. A pty of unknown
 * size (0 columns) counts as none.
 */
function widthOf(terminal: ClientTerminal | undefined): number | undefined {
  const columns = terminal?.columns ?? 0;
  return columns > 0 ? columns : undefined;
}

function reportFailure(
  err: unknown,
  line: string,
  sink: CommandSink,
  width: number | undefined,
): Outcome {
  if (err instanceof Cancellation) {
    if (err.why === 'shutdown') void sink.stderr('error: the server is shutting down\n');
    return { exit: INTERRUPTED_EXIT, status: CANCELLED_STATUS };
  }
  const { error, detail } = publicFailure(err);
  // A failure that still carries data (`rm` with some VMs deleted) shows it, as /exec does.
  if (error.body !== undefined) {
    void sink.stdout(
      asksForJson(line) ? renderJson(error.body) : renderText(error.body, undefined, width),
    );
  }
  // People read this: a 404's suggestion (a header over HTTP) goes after the message.
  const suggestions = parseSuggestions(error.headers[SUGGESTIONS_HEADER]);
  void sink.stderr(`error: ${withSuggestions(error.message, suggestions)}\n`);
  return {
    exit: error.exitCode,
    status: error.status,
    ...(detail === undefined ? {} : { detail }),
  };
}

/** Whether `--json` was typed; only needed when dispatch failed before saying so itself. */
function asksForJson(line: string): boolean {
  try {
    return lexCommandLine(line).includes('--json');
  } catch {
    return false;
  }
}
