import type { ServerResponse } from 'node:http';
import { ExectlError } from '../../errors.js';
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

/**
 * Answers `ssh <vm> <command>`: raw interleaved output. While it fits in 1 MiB it is held
 * back, so the answer can carry `X-Exec-Exit` and a status (200 for exit 0, 422 otherwise;
 * a timeout throws for the funnel's 504). Past 1 MiB the answer starts streaming with 200 and
 * the exit code follows as the `X-Exec-Exit` trailer, which is then always sent (undici's fetch
 * rejects a body whose announced trailer never comes): {@link STREAMED_TIMEOUT_EXIT} at the
 * deadline, {@link STREAMED_CUT_OFF_EXIT} for any other failure (server shutdown, an internal
 * error), which is rethrown after the answer ended, for the log. `headers` go on the answer too
 * (the request id). A client that reads trailers (`streamAtOnce`: it sent `TE: trailers`)
 * gets the streamed form from the first byte of output (a failure before any output still gets
 * its status). `exitHeaders` name the exit code's header and trailer (one per dialect the server
 * speaks). Resolves with the status sent.
 */
export async function sendStream(
  res: ServerResponse,
  output: StreamOutput,
  headers: Record<string, string> = {},
  streamAtOnce = false,
  exitHeaders: readonly string[] = [EXECTL_DIALECT.exitHeader],
): Promise<number> {
  // Each name carries the same code: `X-Exec-Exit`, and `X-Exe-Exit` under --compat (SPEC §12).
  const exit = (code: number): Record<string, string> =>
    Object.fromEntries(exitHeaders.map((name) => [name, String(code)]));
  const held: Buffer[] = [];
  let heldBytes = 0;
  let streaming = false;

  const startStreaming = () => {
    streaming = true;
    res.writeHead(
      200,
      Object.assign({}, headers, {
        'Content-Type': 'application/octet-stream',
        Trailer: exitHeaders.join(', '),
      }),
    );
    for (const chunk of held) res.write(chunk);
    held.length = 0;
  };

  let exitCode: number;
  try {
    ({ exitCode } = await output.start({
      write(chunk) {
        if (!streaming) {
          held.push(chunk);
          heldBytes += chunk.length;
          if (streamAtOnce || heldBytes > BUFFER_LIMIT) startStreaming();
          return drained(res);
        }
        // A client gone or a timed-out answer takes nothing more; the command is being stopped.
        if (res.writableEnded || res.destroyed) return undefined;
        res.write(chunk);
        return drained(res);
      },
    }));
  } catch (err) {
    if (!streaming) throw err;
    // The status is already on the wire: the trailer is the only way left to say what happened.
    const timedOut = err instanceof ExectlError && err.code === 'timeout';
    res.addTrailers(
      Object.assign(exit(timedOut ? STREAMED_TIMEOUT_EXIT : STREAMED_CUT_OFF_EXIT), {
        // Says why, so a client can tell a timeout from a program that exited 124 itself.
        'X-Exec-Error': timedOut ? err.message : 'cut off by the server',
      }),
    );
    if (timedOut) {
      res.end();
      return 200;
    }
    // Cut off by a shutdown (or a fault): the connection closes once the trailer is out, as a
    // 503 says `Connection: close`, so the server need not wait for it to idle.
    const socket = res.socket;
    res.end(() => socket?.end());
    throw err;
  }

  if (streaming) {
    res.addTrailers(exit(exitCode));
    res.end();
    return 200;
  }
  const status = exitCode === 0 ? 200 : 422;
  const body = Buffer.concat(held, heldBytes);
  // Object.assign, not a spread plus fields: see writeJson.
  res.writeHead(
    status,
    Object.assign(
      {},
      headers,
      { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length },
      exit(exitCode),
    ),
  );
  res.end(body);
  return status;
}
