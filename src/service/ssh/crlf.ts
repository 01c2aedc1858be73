const LF = 0x0a;
const CR = 0x0d;

/**
 * Turns bare `\n` into `\r\n`, as a terminal's `onlcr` mode would: the SSH front end emulates
 * a pty without having one, and the client's terminal is in raw mode, so a bare line feed
 * would move down without returning to the first column. Line feeds already preceded by
 * `\r` stay as they are, also when the `\r` ended the previous chunk.
 */
export class CrlfTranslator {
  #previous = 0;

  translate(chunk: Buffer): Buffer {
    let extra = 0;
    for (let i = 0; i < chunk.length; i += 1) {
      if (chunk[i] === LF && (i === 0 ? this.#previous : chunk[i - 1]) !== CR) extra += 1;
    }
    const out = extra === 0 ? chunk : Buffer.allocUnsafe(chunk.length + extra);
    if (extra > 0) {
      let j = 0;
      for (let i = 0; i < chunk.length; i += 1) {
        const byte = chunk[i]!;
        if (byte === LF && (i === 0 ? this.#previous : chunk[i - 1]) !== CR) out[j++] = CR;
        out[j++] = byte;
      }
    }
    if (chunk.length > 0) this.#previous = chunk[chunk.length - 1]!;
    return out;
  }
}
