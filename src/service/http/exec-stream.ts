import type { ServerResponse } from 'node:http';
import { ExectlError, publicFailure } from '../../errors.js';
import { EXECTL_DIALECT } from '../../dialects.js';
import type { StreamOutput } from '../dispatch/types.js';

/** Output up to this size is buffered so the exit code can go in a header (SPEC §2). */
const BUFFER_LIMIT = 1024 * 1024;

/** Exit code reported in the trailer when a streamed command hits its deadline (as timeout(1)). */
const STREAMED_TIMEOUT_EXIT = 124;
/** Exit code in the trailer when the server cut a streamed command off (as ssh(1) on a lost connection). */
const STREAMED_CUT_OFF_EXIT = 255;

/**
 * How much of a streamed answer may wait in the response before the VM's output is paused.
 * Pausing at Node's own mark (16 KiB, less than one 64 KiB pipe read) would stop and restart
 * the pipe on every chunk; 1 MiB keeps it flowing while a client reads, and bounds what a
 * client that reads nothing costs.
 */
const STREAM_BUFFER = 1024 * 1024;

/**
 * Undefined while `res` holds less than {@link STREAM_BUFFER}, else a promise that settles once
 * it has drained, or once the client is gone (which frees what was waiting at once).
 */
function drained(res: ServerResponse): Promise<void> | undefined {
  if (res.writableLength < STREAM_BUFFER || res.destroyed) return undefined;
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** How the answer to one `ssh <vm> <command>` is written: names and statuses of the dialects spoken. */
export interface StreamAnswerShape {
  /** On every answer (the request id). */
  headers?: Record<string, string>;
  /** The client sent `TE: trailers`: output streams from its first byte. */
  streamAtOnce?: boolean;
  /** The exit code's header and trailer, one per dialect the server speaks. */
  exitHeaders?: readonly string[];
  /** The held-back answer's status tells the exit code (422, 504); false: always 200. */
  exitInStatus?: boolean;
}

/**
 * Answers `ssh <vm> <command>`: raw interleaved output, always chunked, always announcing
 * `Trailer: X-Exec-Exit` and always ending with the exit code in it, whatever the client's `TE`
 * and whatever happens (SPEC §2): clients of the real service read only the trailer, and Go's
 * net/http reads it without asking. While the output fits in 1 MiB it is held back, so the
 * answer also carries the code as a header and a status (200 for exit 0, 422 otherwise, 504
 * and exit {@link STREAMED_TIMEOUT_EXIT} at the deadline; always 200 when `exitInStatus` is
 * false). Past 1 MiB, or from the first byte for a client that sent `TE: trailers`, it streams
 * with 200 and only the trailer tells. A command cut off by the deadline or anything else
 * (server shutdown, an internal error) ends with {@link STREAMED_TIMEOUT_EXIT} or
 * {@link STREAMED_CUT_OFF_EXIT} and an `X-Exec-Error` saying why (header and trailer); any
 * error but the deadline is rethrown after the answer ended, for the log. Resolves with the
 * status sent.
 */
export async function sendStream(
  res: ServerResponse,
  output: StreamOutput,
  shape: StreamAnswerShape = {},
): Promise<number> {
  const headers = shape.headers ?? {};
  const exitHeaders = shape.exitHeaders ?? [EXECTL_DIALECT.exitHeader];
  const exitInStatus = shape.exitInStatus ?? true;
  // Each name carries the same code: `X-Exec-Exit`, and `X-Exe-Exit` under --compat (SPEC §12).
  const exit = (code: number): Record<string, string> =>
    Object.fromEntries(exitHeaders.map((name) => [name, String(code)]));
  const held: Buffer[] = [];
  let heldBytes = 0;
  let streaming = false;

  /** The head of every answer; `ending` (the held-back answer's end) adds the code as headers. */
  const writeHead = (status: number, ending: Record<string, string> = {}) => {
    res.writeHead(
      status,
      Object.assign(
        {},
        headers,
        { 'Content-Type': 'application/octet-stream', Trailer: exitHeaders.join(', ') },
        ending,
      ),
    );
  };
  const startStreaming = () => {
    streaming = true;
    writeHead(200);
    for (const chunk of held) res.write(chunk);
    held.length = 0;
  };
  /** Ends a held-back answer: its status and code as headers, the output, the same as trailers. */
  const endHeld = (status: number, ending: Record<string, string>, head = ending) => {
    writeHead(exitInStatus ? status : 200, head);
    for (const chunk of held) res.write(chunk);
    res.addTrailers(ending);
    res.end();
    return exitInStatus ? status : 200;
  };

  let exitCode: number;
  try {
    ({ exitCode } = await output.start({
      write(chunk) {
        if (!streaming) {
          held.push(chunk);
          heldBytes += chunk.length;
          if (shape.streamAtOnce === true || heldBytes > BUFFER_LIMIT) startStreaming();
          return drained(res);
        }
        // A client gone or a timed-out answer takes nothing more; the command is being stopped.
        if (res.writableEnded || res.destroyed) return undefined;
        res.write(chunk);
        return drained(res);
      },
    }));
  } catch (err) {
    const timedOut = err instanceof ExectlError && err.code === 'timeout';
    // Refused before it ran (a paused VM, one being removed): nothing is on the wire yet and
    // there is no exit code to tell, so the error funnel answers it as any command's refusal.
    const refused = !timedOut && publicFailure(err).error.status < 500;
    if (refused && !streaming && held.length === 0) throw err;
    const ending = Object.assign(exit(timedOut ? STREAMED_TIMEOUT_EXIT : STREAMED_CUT_OFF_EXIT), {
      // Says why, so a client can tell a timeout from a program that exited 124 itself.
      'X-Exec-Error': timedOut ? err.message : 'cut off by the server',
    });
    let status = 200;
    if (streaming) {
      // The status is already on the wire: the trailer is the only way left to say what happened.
      res.addTrailers(ending);
    } else {
      // A cut-off answer says the connection ends with it (see below); a timeout's need not.
      const head = timedOut ? ending : { ...ending, Connection: 'close' };
      status = endHeld(publicFailure(err).error.status, ending, head);
    }
    if (timedOut) {
      if (streaming) res.end();
      return status;
    }
    // Cut off by a shutdown (or a fault): the connection closes once the trailer is out, as a
    // 503 says `Connection: close`, so the server need not wait for it to idle.
    const socket = res.socket;
    if (streaming) res.end(() => socket?.end());
    else res.once('finish', () => socket?.end());
    throw err;
  }

  if (streaming) {
    res.addTrailers(exit(exitCode));
    res.end();
    return 200;
  }
  return endHeld(exitCode === 0 ? 200 : 422, exit(exitCode));
}
