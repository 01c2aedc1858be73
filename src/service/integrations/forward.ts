// The integration proxy: a VM's request, streamed to the integration's target with the
// configured headers added, and the answer streamed back. The secret headers exist only here.
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ExectlError } from '../../errors.js';
import { isSendableHeaderValue } from '../rules/integrations.js';
import { quote } from '../rules/validate.js';
import type { IntegrationRecord } from '../store/index.js';
import { guardedConnection, isGuardRefusal } from './guarded-lookup.js';
import { downstreamResponseHeaders, upstreamRequestHeaders } from './headers.js';
import { LOOP_HEADER } from './loop.js';
import { upstreamUrl } from './upstream-url.js';

/** A forwarding integration: one with a target (every type but `reflection`). */
export type ForwardingIntegration = IntegrationRecord & { target: string };

/**
 * Forwards `req` to `<target><rest>` (see {@link upstreamUrl}) with the same method, query,
 * body and end-to-end headers plus the integration's own, and `loopMark` (see loop.ts), and
 * streams the target's status, headers and body back. Resolves with the status sent once the
 * answer is complete (or cut). Unless `allowPrivateTargets`, the connection goes only to
 * addresses checked not to be private (guarded-lookup.ts), resolved anew for each connection.
 *
 * @throws ExectlError `bad_gateway` `integration "x" is unreachable` when the target cannot be
 *   reached before it answers, or `integration "x": header "X" is not visible ASCII; ...` for
 *   a value stored before that rule; `forbidden` `integration "x" refused: ...` when the
 *   target is private; `bad_request` when `rest` climbs out of the target's path.
 */
export function forwardToIntegration(
  req: IncomingMessage,
  res: ServerResponse,
  integration: ForwardingIntegration,
  rest: string,
  { loopMark, allowPrivateTargets }: { loopMark: string; allowPrivateTargets: boolean },
): Promise<number> {
  const url = upstreamUrl(integration.target, rest);
  refuseUnsendableHeaders(integration);
  const guard = guardedConnection(url, integration.name, allowPrivateTargets);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers = upstreamRequestHeaders(req.headersDistinct, integration.headers, url.host);
  headers[LOOP_HEADER] = loopMark;
  const upstream = send(url, { method: req.method, headers, ...guard });
  // The Expect header is not forwarded (the target never sees it): invite the body ourselves.
  if (req.headers.expect?.toLowerCase() === '100-continue') res.writeContinue();

  return new Promise<number>((resolve, reject) => {
    const unreachable = (error: Error) =>
      new ExectlError('bad_gateway', `integration "${integration.name}" is unreachable`, {
        logDetail: `${url.origin}: ${(error as NodeJS.ErrnoException).code ?? error.message}`,
      });

    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, downstreamResponseHeaders(answer.headersDistinct));
      answer.pipe(res);
      answer.on('error', () => res.destroy());
      res.on('close', () => {
        // The VM hung up early: stop reading from the target too.
        if (!res.writableFinished) answer.destroy();
        resolve(answer.statusCode ?? 502);
      });
    });
    let vmLeft = false;
    upstream.on('error', (error) => {
      // Before an answer the VM gets a 502; after, the cut connection is the only signal left.
      if (res.headersSent) res.destroy();
      else if (!vmLeft) reject(isGuardRefusal(error) ? error : unreachable(error));
    });
    req.on('error', () => upstream.destroy());
    res.on('close', () => {
      if (res.headersSent) return;
      // The VM hung up before the target answered: drop the upstream request. 499 is the
      // log's name for it (nginx's "client closed request"); nobody is left to receive it.
      vmLeft = true;
      upstream.destroy();
      resolve(499);
    });
    req.pipe(upstream);
  });
}

/**
 * A header value `--header` refuses today may still sit in a data folder from before the rule:
 * node would throw on it at every request (a 500). Refused with a line that says what to do.
 */
function refuseUnsendableHeaders(integration: ForwardingIntegration): void {
  for (const line of integration.headers) {
    const colon = line.indexOf(':');
    if (!isSendableHeaderValue(line.slice(colon + 1))) {
      throw new ExectlError(
        'bad_gateway',
        `integration ${quote(integration.name)}: header ${quote(line.slice(0, colon))} is not visible ASCII; remove the integration and add it again`,
      );
    }
  }
}
