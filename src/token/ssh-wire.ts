/**
 * The SSH wire encoding (RFC 4251 §5) used by key blobs, signatures and SSHSIG: big-endian
 * `uint32`, length-prefixed `string`, and `mpint` (two's complement, minimal, positive values
 * only here). The reader is strict: every read checks bounds, and callers must call
 * {@link SshReader.end} so that trailing bytes are refused.
 */

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads SSH wire values from a buffer. Every structural problem throws the error made by the
 * `fail` factory, so each caller decides which catalogue error a bad structure becomes.
 */
export class SshReader {
  private offset = 0;
  private readonly bytes: Buffer;

  /**
   * @param bytes the encoded data (not copied: returned strings are views into it)
   * @param fail makes the error thrown on any truncation, bad length or trailing data
   */
  constructor(
    bytes: Uint8Array,
    private readonly fail: () => Error,
  ) {
    this.bytes = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** True when every byte has been consumed. */
  get atEnd(): boolean {
    return this.offset === this.bytes.length;
  }

  /** Reads one byte. */
  byte(): number {
    return this.take(1)[0] as number;
  }

  /** Reads a big-endian uint32. */
  uint32(): number {
    return this.take(4).readUInt32BE(0);
  }

  /** Reads `len` raw bytes without a length prefix (e.g. the SSHSIG magic). */
  raw(len: number): Buffer {
    return this.take(len);
  }

  /** Reads a length-prefixed string as bytes. */
  string(): Buffer {
    return this.take(this.uint32());
  }

  /** Reads a length-prefixed string that must be valid UTF-8. */
  text(): string {
    try {
      return STRICT_UTF8.decode(this.string());
    } catch {
      throw this.fail();
    }
  }

  /**
   * Reads an mpint that must be non-negative; returns its magnitude without leading zero bytes
   * (empty for zero). Redundant leading zeros are tolerated, as OpenSSH tolerates them.
   */
  mpint(): Buffer {
    const data = this.string();
    if (data.length > 0 && ((data[0] as number) & 0x80) !== 0) throw this.fail();
    let start = 0;
    while (start < data.length && data[start] === 0) start++;
    return data.subarray(start);
  }

  /** Throws unless every byte has been consumed. */
  end(): void {
    if (!this.atEnd) throw this.fail();
  }

  private take(len: number): Buffer {
    if (len > this.bytes.length - this.offset) throw this.fail();
    const out = this.bytes.subarray(this.offset, this.offset + len);
    this.offset += len;
    return out;
  }
}

/** Encodes a big-endian uint32. */
export function sshUint32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value, 0);
  return out;
}

/** Encodes a length-prefixed string; text is encoded as UTF-8. */
export function sshString(data: Uint8Array | string): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  return Buffer.concat([sshUint32(bytes.length), bytes]);
}

/**
 * Encodes a non-negative integer given as big-endian magnitude bytes as an mpint: leading
 * zeros stripped, then one zero byte added back when the top bit is set (the sign bit).
 */
export function sshMpint(magnitude: Uint8Array): Buffer {
  let start = 0;
  while (start < magnitude.length && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  const needsSignByte = trimmed.length > 0 && ((trimmed[0] as number) & 0x80) !== 0;
  return sshString(needsSignByte ? Buffer.concat([Buffer.of(0), trimmed]) : trimmed);
}

/** Left-pads big-endian magnitude bytes with zeros to `length`; throws if they are longer. */
export function leftPad(magnitude: Uint8Array, length: number, fail: () => Error): Buffer {
  if (magnitude.length > length) throw fail();
  const out = Buffer.alloc(length);
  out.set(magnitude, length - magnitude.length);
  return out;
}
