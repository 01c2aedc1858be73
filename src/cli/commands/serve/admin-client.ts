// The client of a running server's admin socket (SPEC §7): `exectl serve accounts` asks the
// server that holds the data folder, and works offline when none listens there.
import { connect } from 'node:net';
import { ExectlError } from '../../../errors.js';
import { fsCause } from '../../../fs-cause.js';
import {
  adminSocketPath,
  answerError,
  MAX_ADMIN_REQUEST_BYTES,
  type AdminRequest,
} from '../../../service/index.js';

/** A server busy with a long write still answers well within this; a wedged one does not. */
const ANSWER_TIMEOUT_MS = 30_000;
/** The largest answer read: `accounts list` of many thousands of accounts. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** No server listens on the folder's admin socket: the caller works offline. */
export const NO_SERVER = Symbol('no server');

/**
 * Sends `request` to the server running on `dataDir` and resolves with its result, or with
 * {@link NO_SERVER} when no socket is there or nobody listens on it (a server killed with -9
 * leaves its socket file behind: the offline path's lock then says whether a server runs).
 *
 * @throws the server's refusal, as the offline path would have thrown it; `unreachable` when the
 *   socket may not be used (another user's server) or the server does not answer.
 */
export async function askServer(dataDir: string, request: AdminRequest): Promise<unknown> {
  const path = adminSocketPath(dataDir);
  if (path === undefined) return NO_SERVER;
  const body = JSON.stringify(request);
  if (Buffer.byteLength(body) > MAX_ADMIN_REQUEST_BYTES) {
    const limit = `${MAX_ADMIN_REQUEST_BYTES / 1024} KiB`;
    throw new ExectlError(
      'usage',
      `the --key files hold more than the server takes at once (${limit})`,
      {
        hint: 'add the keys in a few runs',
      },
    );
  }
  return new Promise((resolve, reject) => {
    const socket = connect({ path, allowHalfOpen: true });
    const chunks: Buffer[] = [];
    let size = 0;
    let connected = false;
    const fail = (error: ExectlError) => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(ANSWER_TIMEOUT_MS, () =>
      fail(
        new ExectlError('unreachable', `the server on ${dataDir} did not answer on ${path}`, {
          hint: "see the server's log, or stop it and run this again",
        }),
      ),
    );
    socket.on('connect', () => {
      connected = true;
      socket.end(body);
    });
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) {
        fail(new ExectlError('server_error', 'the admin answer is too large'));
      } else chunks.push(chunk);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      socket.destroy();
      if (!connected && (err.code === 'ENOENT' || err.code === 'ECONNREFUSED')) {
        resolve(NO_SERVER);
      } else if (!connected && (err.code === 'EACCES' || err.code === 'EPERM')) {
        reject(
          new ExectlError(
            'unreachable',
            `cannot use the admin socket of the server on ${dataDir}: ${fsCause(err)}`,
            { hint: 'run this as the user the server runs as, or as root' },
          ),
        );
      } else {
        reject(
          new ExectlError('unreachable', `admin socket ${path}: ${fsCause(err)}`, {
            hint: "see the server's log, or stop it and run this again",
          }),
        );
      }
    });
    // Without an answer (the server stopped meanwhile); after one, this changes nothing.
    socket.on('close', () =>
      reject(
        new ExectlError('unreachable', `the server on ${dataDir} hung up without an answer`, {
          hint: 'run this again: offline if the server stopped',
        }),
      ),
    );
    socket.on('end', () => {
      socket.destroy();
      try {
        resolve(readAnswer(Buffer.concat(chunks).toString('utf8')));
      } catch (err) {
        reject(err);
      }
    });
  });
}

/** The result an answer carries, or the error it stands for. */
function readAnswer(text: string): unknown {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = undefined;
  }
  if (typeof answer === 'object' && answer !== null) {
    if ('ok' in answer) return answer.ok;
    if ('error' in answer) throw answerError(answer.error);
  }
  throw answerError(undefined);
}
