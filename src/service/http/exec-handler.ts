import type { IncomingMessage, ServerResponse } from 'node:http';
import { ExectlError } from '../../errors.js';
import { admit, type CommandEnvironment } from '../dispatch/admit.js';
import { DEFAULTS, dialectsOf } from '../config.js';
import { newLogEntry, runLogged } from '../request-log.js';
import { sendError, writeJson } from './error-funnel.js';
import { sendStream } from './exec-stream.js';
import { heldBack } from './hold-back.js';
import { InFlightCommands } from './in-flight.js';
import { readBody } from './read-body.js';
import { bearerToken, type TokenAuthenticator } from './token-auth.js';

interface ExecHandlerOptions extends CommandEnvironment {
  auth: TokenAuthenticator;
  /** Aborted when the server shuts down: running commands are told to stop. */
  shutdown: AbortSignal;
}

/**
 * `POST /exec` (SPEC §2). The checks run in the spec's order and the first failure answers:
 * method, token, rate limit, body size, body content, then the dispatcher's own order
 * (syntax, unknown command, permission, arguments, deadline).
 */
export function createExecHandler(options: ExecHandlerOptions) {
  const { deps, auth } = options;
  const namespace = `v0@${deps.config.domain}`;
  const dialects = dialectsOf(deps.config);
  const exitHeaders = dialects.map((dialect) => dialect.exitHeader);
  // One dialect whose clients take a non-2xx for a transport error makes every answer 200.
  const exitInStatus = dialects.every((dialect) => dialect.vmExitInStatus);
  const inFlight = new InFlightCommands(options.shutdown);

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const entry = newLogEntry('http');
    // On every answer, given with its status: setHeader beforehand would move Node's writeHead
    // onto its slow path, a visible cost per request.
    const idHeader = { 'X-Request-Id': entry.requestId };
    // The client hanging up, or the server shutting down, stops the command (and its VM
    // processes).
    const stopWhen = inFlight.track(res);

    const work = async (): Promise<number> => {
      if (req.method !== 'POST') {
        throw new ExectlError('method_not_allowed', 'method not allowed', {
          headers: { Allow: 'POST' },
        });
      }
      const caller = await heldBack(() => {
        const token = withBearerChallenge(() => bearerToken(req.headers.authorization));
        const authenticate = () =>
          withBearerChallenge(() => auth.authenticate(token, namespace, req.socket));
        // Only an address out of failed verifications waits for its turn (token-auth.ts).
        const turn = auth.turnToVerify(token, namespace, req.socket);
        return turn === null ? authenticate() : turn.then(authenticate);
      });
      const result = await admit(options, {
        principal: caller.principal,
        line: () => readBody(req, res, DEFAULTS.bodyLimit),
        noun: 'request body',
        entry,
        stopWhen,
      });
      if (result.output.kind === 'stream') {
        return sendStream(res, result.output, {
          headers: idHeader,
          streamAtOnce: acceptsTrailers(req.headers.te),
          exitHeaders,
          exitInStatus,
        });
      }
      // An interactive shell needs a terminal, which HTTP cannot give (SSH with a pty can).
      if (result.output.kind === 'interactive') throw result.output.refusal;
      writeJson(res, 200, result.output.data, idHeader);
      return 200;
    };
    await runLogged(deps.config.log, entry, work, (err) => {
      if (err instanceof ExectlError && err.code === 'body_too_large') lingerThenClose(req);
      return sendError(res, err, idHeader);
    });
  };
}

// How long the rest of a refused body is read (and dropped) after the 413.
const LINGER_MS = 2_000;

/**
 * After a 413 the client is usually still sending. Closing at once would reset the connection
 * under it, and the client would report a broken pipe instead of the 413 (nginx's "lingering
 * close" avoids the same). So the rest of the body is read and dropped, and the connection is
 * cut if the body has not ended within LINGER_MS: a
 * multi-megabyte body costs no memory, an endless one no more than that moment.
 */
function lingerThenClose(req: IncomingMessage): void {
  const socket = req.socket;
  req.resume();
  const cut = setTimeout(() => socket.destroy(), LINGER_MS);
  cut.unref();
  // Only the body's end or the connection's own close may spare it: whatever else the request
  // object reports, an endless body must not keep the connection (and a reader) forever.
  req.once('end', () => clearTimeout(cut));
  socket.once('close', () => clearTimeout(cut));
}

/** Every 401 tells the client which scheme to use (RFC 6750). */
function withBearerChallenge<T>(authenticate: () => T): T {
  try {
    return authenticate();
  } catch (err) {
    if (err instanceof ExectlError && err.code === 'unauthorized') {
      Object.assign(err.headers, { 'WWW-Authenticate': 'Bearer' });
    }
    throw err;
  }
}

/**
 * `TE: trailers` (RFC 9110 §10.1.4): the client reads trailers, so a VM command's output can
 * stream from its first byte with the exit code in the trailer (exectl's own client says it).
 */
function acceptsTrailers(te: string | string[] | undefined): boolean {
  return [te ?? []]
    .flat()
    .join(',')
    .split(',')
    .some((part) => part.trim().split(';')[0]!.toLowerCase() === 'trailers');
}
