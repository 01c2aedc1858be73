// Raw bytes from the server (the output of a VM command) to stdout as they arrive.
import type { Writable } from 'node:stream';
import type { ChunkSink } from './exec/http.js';

/**
 * A sink writing to `stream` that waits while the stream is full, and drops the rest once the
 * reader is gone (`exectl ssh web cat big | head -1`): a closed pipe must neither hang the
 * client nor be reported as its failure (main.ts ignores EPIPE).
 */
export function streamSink(stream: Writable): ChunkSink {
  let gone = false;
  const markGone = () => {
    gone = true;
  };
  stream.once('error', markGone);
  stream.once('close', markGone);
  return (chunk) => {
    if (gone || stream.write(chunk)) return;
    return new Promise<void>((resolve) => {
      const done = () => {
        stream.off('drain', done);
        stream.off('error', done);
        stream.off('close', done);
        resolve();
      };
      stream.once('drain', done);
      stream.once('error', done);
      stream.once('close', done);
    });
  };
}
