import type { IncomingMessage, ServerResponse } from 'node:http';
import { ExectlError } from '../../errors.js';

/**
 * Reads a request body of at most `limit` bytes. A declared Content-Length over the limit is
 * refused before reading a byte (and before a client waiting on `Expect: 100-continue` is told
 * to send it); otherwise reading stops as soon as one byte too many has arrived, so a
 * multi-megabyte body never sits in memory. The caller closes the connection after a 413,
 * since the rest of the body is never read.
 */
export function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
): Promise<Buffer> {
  const tooLarge = () =>
    new ExectlError('body_too_large', `request body exceeds ${limit} bytes`, {
      hint: 'send a shorter command line',
    });
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge());
  if (req.headers.expect?.toLowerCase() === '100-continue') res.writeContinue();

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
