// The bytes the VM proxy writes: heads and chunked framing. Header names and values are latin1
// strings, one character per byte, as llhttp read them and proxy-headers.ts made them, and go
// out as exactly those bytes (llhttp refuses CR, LF and NUL in them, and the proxy's own values
// hold none).

/** A head: `start` line, the [name, value...] pairs, `extra` (whole lines), the empty line. */
export function headLines(start: string, pairs: readonly string[], extra: string): string {
  let text = `${start}\r\n`;
  for (let i = 0; i + 1 < pairs.length; i += 2) text += `${pairs[i]}: ${pairs[i + 1]}\r\n`;
  return `${text}${extra}\r\n`;
}

/** `data` as one chunk of a chunked body (never an empty one, which would end the body). */
export function chunkFrame(data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`, 'latin1'), data, CRLF]);
}

/** The end of a chunked body, with its trailers. */
export function lastChunk(trailers: readonly string[]): string {
  return headLines('0', trailers, '');
}

const CRLF = Buffer.from('\r\n', 'latin1');
