// One request on a VM proxy connection, from its parsed head to the end of its body, and the
// side of the client's connection an exchange writes to.
import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { ParsedHead } from './http-parser.js';

/** Where a request's body goes once it is let through (until then it waits in `body`). */
export interface BodySink {
  chunk(data: Buffer): void;
  end(trailers: string[]): void;
}

/** A request read from a client's connection; the shape proxy-headers.ts reads as well. */
export interface ProxiedRequest {
  head: ParsedHead;
  method: string;
  url: string;
  rawHeaders: string[];
  /** node:http's `req.headers` view of `rawHeaders`. */
  headers: IncomingHttpHeaders;
  /** The client's connection. */
  socket: Socket;
  /** The VM label its Host names. */
  label: string;
  /** Its body is chunked: it goes on chunked, with its trailers. */
  chunked: boolean;
  /** It has a body at all (chunked, or a length above 0). */
  hasBody: boolean;
  /** Body pieces read before a sink took them. */
  body: Buffer[];
  /** The whole body (and trailers) has been read. */
  complete: boolean;
  trailers: string[];
  sink: BodySink | null;
  /** Its turn came: it is being checked or forwarded. */
  started: boolean;
  /** Its answer has been written (its body may still be arriving). */
  exchanged: boolean;
}

/** The client's side of a VM proxy connection, as an exchange uses it. */
export interface ClientSide {
  socket: Socket;
  /**
   * Writes to the client; false when its buffer is full (the caller stops its source until
   * `socket` drains).
   */
  write(data: string | Buffer): boolean;
  /** Stops (or lets go again) reading requests while `reason` holds. */
  hold(reason: string): void;
  release(reason: string): void;
  /** Whether the connection ends after the answer being written. */
  keepAlive(request: ProxiedRequest): boolean;
  /**
   * Hands the connection to a tunnel after a 101: what the client sent past the upgrade request
   * (never parsed) goes to the VM first. Resolves when the tunnel closes.
   */
  handOver(upstream: Socket, fromVm: Buffer): Promise<void>;
}
