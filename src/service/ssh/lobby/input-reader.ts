// A lobby command's standard input (dispatch's `ReadInput`): what `cat script | ssh host
// defaults write dev.exe new.setup-script` pipes in, read to its end but never past a bound,
// so a client streaming forever holds at most `limit` bytes of the server's memory.
import type { ReadInput } from '../../dispatch/types.js';

/** Reads `input` to its end, keeping at most `limit` bytes (null past that: see ReadInput). */
export function inputReader(input: NodeJS.ReadableStream): ReadInput {
  return (limit) =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let over = false;
      const onData = (chunk: Buffer | string) => {
        if (over) return;
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        size += bytes.length;
        if (size > limit) {
          // Answered at once; the rest is drained by whoever reads the channel next.
          over = true;
          done();
          resolve(null);
          return;
        }
        chunks.push(bytes);
      };
      const onEnd = () => {
        done();
        resolve(Buffer.concat(chunks));
      };
      const onError = (err: Error) => {
        done();
        reject(err);
      };
      const done = () => {
        input.removeListener('data', onData);
        input.removeListener('end', onEnd);
        input.removeListener('error', onError);
        input.pause();
      };
      input.on('data', onData);
      input.on('end', onEnd);
      input.on('error', onError);
      input.resume();
    });
}
