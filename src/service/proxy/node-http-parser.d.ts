// The part of Node's internal `_http_common` module (its llhttp binding, the parser node:http
// itself uses) that http-parser.ts calls. Node ships no types for it; it has been stable since
// Node 12 and loads without a warning (unlike process.binding).
declare module 'node:_http_common' {
  export const methods: readonly string[];
  export class HTTPParser {
    static readonly REQUEST: number;
    static readonly RESPONSE: number;
    static readonly kOnHeaders: number;
    static readonly kOnHeadersComplete: number;
    static readonly kOnBody: number;
    static readonly kOnMessageComplete: number;
    static readonly kOnExecute: number;
    static readonly kLenientNone: number;
    [callback: number]: unknown;
    initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
    execute(data: Buffer): number | (Error & { code: string; bytesParsed: number });
    finish(): undefined | (Error & { code: string; bytesParsed: number });
    close(): void;
    free(): void;
    remove(): void;
  }
}
