// A message as the SMTP listener takes it off the wire (SPEC §4b): at most the size limit is
// kept, whatever the client sends; the rest is read and dropped, so a 10 MB DATA costs no more
// memory than a 1 MB one. Lines end in LF in the Maildir, as Unix mail readers expect.
import type { Readable } from 'node:stream';

/** The message, or how far it went past the limit. */
export type BoundedMessage = { exceeded: false; bytes: Buffer } | { exceeded: true };

/**
 * Reads `stream` to its end, keeping its bytes with CRLF turned into LF while they stay within
 * `limit` (counted as sent); resolves once the stream ended.
 */
export function readBoundedMessage(stream: Readable, limit: number): Promise<BoundedMessage> {
  return new Promise((resolve, reject) => {
    const kept: Buffer[] = [];
    let size = 0;
    // A CR at the end of the last chunk: dropped if the next chunk starts with LF.
    let pendingCr = false;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        kept.length = 0;
        return;
      }
      const text = pendingCr ? Buffer.concat([Buffer.from('\r'), chunk]) : chunk;
      pendingCr = text.at(-1) === 0x0d;
      kept.push(withoutCr(pendingCr ? text.subarray(0, -1) : text));
    });
    stream.once('end', () => {
      if (size > limit) return resolve({ exceeded: true });
      if (pendingCr) kept.push(Buffer.from('\r'));
      resolve({ exceeded: false, bytes: Buffer.concat(kept) });
    });
    stream.once('error', reject);
  });
}

/** `bytes` with every CR that comes before an LF removed. */
function withoutCr(bytes: Buffer): Buffer {
  if (!bytes.includes(0x0d)) return bytes;
  return Buffer.from(bytes.toString('latin1').replace(/\r\n/g, '\n'), 'latin1');
}
