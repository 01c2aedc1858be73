// The dashboard's terminal (SPEC §11): a WebSocket at `/_/api/terminal?vm=NAME&cols=C&rows=R`
// carrying the VM shell that `ssh <vm>` gives over SSH with a pty. The line `ssh <vm>` goes
// through the dispatcher (admit-line.ts) like any command, so the same rule authorises it and
// the same log line reports it (when the shell ends). Frames: binary from the page are
// keystrokes, text from the page is `{"type":"resize","cols":C,"rows":R}`, binary to the page
// is the screen; the socket closes with code 1000 and reason `exit <code>` when the shell ends.
import type { IncomingMessage } from 'node:http';
import { PassThrough, Writable, type Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { commandFailed, ExectlError } from '../../errors.js';
import { quoteForShell } from '../../shell-words.js';
import { stopWhenAborted } from '../dispatch/stop.js';
import type { InteractiveOutput } from '../dispatch/types.js';
import { refuseOnSocket } from '../proxy/upgrade-tunnel.js';
import { newLogEntry, runLogged } from '../request-log.js';
import type { LogSink } from '../config.js';
import { admitLine, type AdmitEnvironment } from './admit-line.js';
import { checkHost, checkOrigin } from './guard.js';
import { loggedPath } from './pages.js';
import { sessionIdOf, sessionPrincipal } from './session.js';
import type { SignIns } from './sign-ins.js';

/** The one WebSocket of the dashboard. */
const TERMINAL_PATH = '/_/api/terminal';
/** The largest frame the page may send: keystrokes and pastes, never more. */
const MAX_FRAME = 64 * 1024;
/** Screen bytes waiting to be sent before the shell's output is paused. */
const OUTPUT_BUFFER = 256 * 1024;
/**
 * Terminals one session may hold open at once (SPEC §7): each is a shell in a VM and buffers of
 * its own, so a page (or a script with the cookie) opening hundreds would take the host's memory.
 */
export const TERMINALS_PER_SESSION = 8;

interface TerminalOptions extends AdmitEnvironment {
  log: LogSink;
  tls: boolean;
  hosts: () => ReadonlySet<string>;
  signIns: SignIns;
  /** Aborted when the server stops: every terminal is hung up. */
  shutdown: AbortSignal;
}

/** The `upgrade` handler of `/_/api/terminal`. */
export function createTerminalUpgrade(options: TerminalOptions) {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME });
  const openBySession = new Map<string, number>();
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    const path = (req.url ?? '').split('?')[0]!;
    // Until the dispatcher names the command (`ssh`): the path, a sign-in's secret left out.
    const entry = newLogEntry('dashboard', `${req.method} ${loggedPath(path)}`);
    const work = async (): Promise<number> => {
      checkHost(req, options.hosts());
      if (path !== TERMINAL_PATH) {
        throw new ExectlError('not_found', 'not found', {
          hint: `the terminal's WebSocket is ${TERMINAL_PATH}`,
        });
      }
      const principal = sessionPrincipal(req, options.signIns, options.deps.store);
      checkOrigin(req, options.tls);
      // sessionPrincipal passed: the request carries exactly one live session.
      const sessionId = sessionIdOf(req)!;
      const open = openBySession.get(sessionId) ?? 0;
      if (open >= TERMINALS_PER_SESSION) {
        throw new ExectlError(
          'rate_limited',
          `this session has ${TERMINALS_PER_SESSION} terminals open: close one to open another`,
        );
      }
      openBySession.set(sessionId, open + 1);
      const query = new URL(req.url ?? '', 'http://x').searchParams;
      const vm = query.get('vm') ?? '';
      const hangUp = new AbortController();
      const stopShell = () => hangUp.abort(new ExectlError('unavailable', 'terminal closed'));
      options.shutdown.addEventListener('abort', stopShell, { once: true });
      try {
        const result = await admitLine(
          options,
          principal,
          `ssh ${quoteForShell(vm)}`,
          entry,
          stopWhenAborted(hangUp.signal),
        );
        if (result.output.kind !== 'interactive') {
          throw commandFailed('the terminal opens a shell in a VM: give only its name');
        }
        const output = result.output;
        // ws answers a handshake it refuses (400) and closes the socket without calling back;
        // the socket's close (that, or a page gone meanwhile) ends the request then.
        const ws = await new Promise<WebSocket>((resolve, reject) => {
          const gone = () => reject(new Error('the handshake ended without a terminal'));
          socket.once('close', gone);
          sockets.handleUpgrade(req, socket, head, (opened) => {
            socket.removeListener('close', gone);
            resolve(opened);
          });
        });
        const size = { cols: sizeOf(query.get('cols'), 80), rows: sizeOf(query.get('rows'), 24) };
        return await runShell(ws, output, size, hangUp, stopShell);
      } finally {
        options.shutdown.removeEventListener('abort', stopShell);
        const left = (openBySession.get(sessionId) ?? 1) - 1;
        if (left === 0) openBySession.delete(sessionId);
        else openBySession.set(sessionId, left);
      }
    };
    void runLogged(options.log, entry, work, (err) =>
      socket.writable ? refuseOnSocket(req, socket, err, entry.requestId) : { status: 499 },
    );
  };
}

/** Runs the shell on the WebSocket until either ends; resolves with the status to log. */
async function runShell(
  ws: WebSocket,
  output: InteractiveOutput,
  size: { cols: number; rows: number },
  hangUp: AbortController,
  stopShell: () => void,
): Promise<number> {
  // A frame past MAX_FRAME, bad UTF-8 or a broken frame: ws closes the socket with its code
  // (1009, 1007, 1002) and emits 'error', which unheard would end the server. The shell goes
  // with the terminal.
  ws.on('error', stopShell);
  const input = new PassThrough({ highWaterMark: MAX_FRAME });
  const screen = new Writable({
    highWaterMark: OUTPUT_BUFFER,
    write(chunk: Buffer, _encoding, done) {
      if (ws.readyState !== ws.OPEN) return done();
      // Called back once the frame is handed to the socket: the shell waits for a slow page.
      ws.send(chunk, { binary: true }, () => done());
    },
  });
  ws.on('close', stopShell);
  const session = output.start({
    ...size,
    term: 'xterm-256color',
    input,
    output: screen,
    signal: hangUp.signal,
  });
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary) {
      if (!input.write(data)) {
        ws.pause();
        input.once('drain', () => ws.resume());
      }
      return;
    }
    const resize = parseResize(data.toString('utf8'));
    if (resize !== undefined) session.resize(resize.cols, resize.rows);
  });
  try {
    const { exitCode } = await session.exited;
    ws.close(1000, `exit ${exitCode}`);
    return exitCode === 0 ? 200 : 422;
  } catch {
    // Hung up: the page went away, or the server is stopping.
    ws.terminate();
    return 499;
  }
}

function parseResize(text: string): { cols: number; rows: number } | undefined {
  try {
    const msg = JSON.parse(text) as { type?: unknown; cols?: unknown; rows?: unknown };
    if (msg.type !== 'resize') return undefined;
    return { cols: sizeOf(String(msg.cols), 80), rows: sizeOf(String(msg.rows), 24) };
  } catch {
    return undefined;
  }
}

/** A terminal dimension from the page, bounded to what a screen can hold. */
function sizeOf(text: string | null, fallback: number): number {
  const n = Number(text);
  return Number.isInteger(n) && n >= 1 && n <= 1000 ? n : fallback;
}
