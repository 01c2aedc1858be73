// Headers a request may carry once only. Node keeps the first of two `Host` or `Authorization`
// headers in `req.headers` and both in `rawHeaders`: the server would route and authenticate
// by the first while the VM proxy hands both on, and the VM's server may read the second (a
// request routed to one VM that claims another's name, or an exectl token in a second
// `Authorization` behind the VM app's own Basic login, passed to the VM). Such a request is
// refused before anything reads it. Node refuses duplicated `Content-Length` and
// `Transfer-Encoding` itself (400, measured on Node 20).
import type { IncomingMessage } from 'node:http';
import { ExectlError } from '../../errors.js';

/** The singletons: lower-case, and as the refusal spells them. */
const SINGLETONS = [
  { lower: 'host', name: 'Host' },
  { lower: 'authorization', name: 'Authorization' },
];

/** A 400 naming the first header `req` repeats of {@link SINGLETONS}, or null when none is. */
export function repeatedSingleton(req: Pick<IncomingMessage, 'rawHeaders'>): ExectlError | null {
  // Counted without a set, and a name lower-cased only when its length matches: this runs on
  // every request.
  const seen = SINGLETONS.map(() => 0);
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const which = SINGLETONS.findIndex(
      ({ lower }) => name.length === lower.length && name.toLowerCase() === lower,
    );
    if (which === -1) continue;
    if (++seen[which]! > 1) {
      return new ExectlError(
        'bad_request',
        `the request has more than one ${SINGLETONS[which]!.name} header: send exactly one`,
      );
    }
  }
  return null;
}
