// Which headers cross the integration proxy, in each direction, and the configured ones added.
import type { OutgoingHttpHeaders } from 'node:http';
import { HOP_BY_HOP_HEADERS } from '../proxy/hop-by-hop.js';
import { LOOP_HEADER } from './loop.js';

/**
 * Header names an integration may not configure: hop-by-hop ones, and those the proxy itself
 * decides (`Host` names the target, `Content-Length` and `Expect` belong to the VM's body, the
 * loop mark is the forwarder's).
 */
export const RESERVED_HEADER_NAMES: ReadonlySet<string> = new Set([
  ...HOP_BY_HOP_HEADERS,
  'host',
  'content-length',
  'expect',
  LOOP_HEADER,
]);

/** A configured `Name: value` line as name (lower case) and value (surrounding blanks cut). */
export function splitHeaderLine(line: string): { name: string; value: string } {
  const colon = line.indexOf(':');
  return {
    name: line.slice(0, colon).toLowerCase(),
    value: line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, ''),
  };
}

/** The headers of one message without hop-by-hop ones and those its `Connection` names. */
function endToEnd(
  headers: NodeJS.Dict<string[]>,
  alsoDrop: readonly string[],
): OutgoingHttpHeaders {
  const named = (headers.connection ?? []).flatMap((v) =>
    v.split(',').map((token) => token.trim().toLowerCase()),
  );
  const drop = new Set([...HOP_BY_HOP_HEADERS, ...named, ...alsoDrop]);
  const kept: OutgoingHttpHeaders = {};
  for (const [name, values] of Object.entries(headers)) {
    if (values !== undefined && !drop.has(name)) kept[name] = values;
  }
  return kept;
}

/**
 * What the target receives: the VM's end-to-end headers, `Host` naming the target, and the
 * integration's configured headers. A configured header replaces any the VM sent under the
 * same name, so the VM can neither drop the secret nor send a second value beside it.
 */
export function upstreamRequestHeaders(
  fromVm: NodeJS.Dict<string[]>,
  configured: readonly string[],
  host: string,
): OutgoingHttpHeaders {
  const lines = configured.map(splitHeaderLine);
  const headers = endToEnd(fromVm, ['host', 'expect', ...lines.map((l) => l.name)]);
  headers.host = host;
  for (const { name, value } of lines) {
    const previous = headers[name];
    headers[name] = Array.isArray(previous) ? [...previous, value] : [value];
  }
  return headers;
}

/** What the VM receives back: the target's end-to-end headers. */
export function downstreamResponseHeaders(fromTarget: NodeJS.Dict<string[]>): OutgoingHttpHeaders {
  return endToEnd(fromTarget, []);
}
