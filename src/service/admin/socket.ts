// The running server's admin socket (SPEC §7): `exectl serve accounts` reaches the server's
// store through it while the server holds the data folder. A Unix socket in a folder of its
// own: the folder is 0700 and the socket 0600, so only the server's user and root can connect.
// Node cannot read a peer's credentials (SO_PEERCRED), so those modes are the whole check.
import { chmodSync, lstatSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { ExectlError, publicFailure } from '../../errors.js';
import { fsCause } from '../../fs-cause.js';
import type { LogSink } from '../config.js';
import { newLogEntry, runLogged, type RequestLogEntry } from '../request-log.js';
import type { Store } from '../store/index.js';
import {
  adminSocketPath,
  errorAnswer,
  MAX_ADMIN_REQUEST_BYTES,
  parseAdminRequest,
  type AdminAnswer,
} from './protocol.js';
import { runAdminRequest } from './run-request.js';

/** A client that connects and then says nothing is cut off after this long. */
const IDLE_MS = 10_000;

/** The listening admin socket. */
export interface AdminSocket {
  /** Stops listening, ends open connections and removes the socket file. */
  close(): Promise<void>;
}

/**
 * Listens on the admin socket of `dataDir`, whose lock the caller holds: a socket file already
 * there was left by a server that died, and is replaced. When the socket cannot be made (a
 * path too long for a Unix socket, a file system without sockets), logs a warning and listens
 * nowhere: the server runs, and `serve accounts` waits for it to stop.
 */
export async function startAdminSocket(options: {
  dataDir: string;
  store: Store;
  log: LogSink;
}): Promise<AdminSocket> {
  const withoutSocket = (why: string): AdminSocket => {
    options.log(
      `no admin socket: ${why}; \`exectl serve accounts\` works only while the server is stopped`,
      'warn',
    );
    return { close: async () => {} };
  };
  const path = adminSocketPath(options.dataDir);
  if (path === undefined) {
    return withoutSocket("the data folder's path is too long for a Unix socket");
  }
  const connections = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    serve(socket, options.store, options.log);
  });
  try {
    privateFolder(dirname(path));
    rmSync(path, { force: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    // The folder already keeps others out; the socket's own mode says the same to whoever looks.
    chmodSync(path, 0o600);
  } catch (err) {
    server.close();
    return withoutSocket(`${path}: ${fsCause(err)}`);
  }
  server.on('error', (err) => options.log(`admin socket error: ${err.message}`, 'error'));
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of connections) socket.destroy();
        server.close(() => {
          rmSync(path, { force: true });
          resolve();
        });
      }),
  };
}

/**
 * Reads one bounded request from `socket`, runs it, answers and hangs up; one log line per
 * request like the other front ends (`via=admin`).
 */
function serve(socket: Socket, store: Store, log: LogSink): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let answered = false;
  const respond = (work: (entry: RequestLogEntry) => unknown) => {
    if (answered) return;
    answered = true;
    const entry = newLogEntry('admin');
    const send = (value: AdminAnswer) => socket.end(`${JSON.stringify(value)}\n`);
    void runLogged(
      log,
      entry,
      async () => {
        send({ ok: work(entry) });
        return 200;
      },
      (err) => {
        const { error, detail } = publicFailure(err);
        send(errorAnswer(error));
        return error.code === 'internal' && detail !== undefined
          ? { status: error.status, detail }
          : { status: error.status };
      },
    );
  };
  socket.setTimeout(IDLE_MS, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_ADMIN_REQUEST_BYTES) {
      chunks.push(chunk);
      return;
    }
    socket.pause();
    respond(() => {
      throw new ExectlError('usage', `admin request over ${MAX_ADMIN_REQUEST_BYTES} bytes`, {
        hint: 'send fewer keys at once',
      });
    });
  });
  socket.on('end', () =>
    respond((entry) => {
      const request = parseAdminRequest(Buffer.concat(chunks).toString('utf8'));
      entry.path = request.op === 'mail' ? 'mail' : `accounts ${request.op}`;
      return runAdminRequest(store, request);
    }),
  );
}

/**
 * Makes `path` a folder only its user may enter: created 0700, or an existing one checked to be
 * a real folder of this user (not a link someone planted) and set back to 0700.
 */
function privateFolder(path: string): void {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const stat = lstatSync(path);
  if (!stat.isDirectory() || stat.uid !== process.getuid?.()) {
    throw new Error("its folder is a link or another user's, not a folder of this user");
  }
  chmodSync(path, 0o700);
}
