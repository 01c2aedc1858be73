import type { Connection, ServerChannel } from 'ssh2';
import { guardChannel } from '../channel-guard.js';
import { runExec } from './exec-session.js';
import { startLineShell } from './line-shell.js';
import { startRepl } from './repl.js';
import type { Interruptible, SessionContext } from '../session-context.js';
import { ClientTerminal, type PtyRequest } from '../shell-terminal.js';

/**
 * Sessions one connection may have open at once, as sshd's MaxSessions: each holds buffers
 * (a window of input, a history), so a connection may not open them without end.
 */
const MAX_SESSIONS = 10;
/** SSH `signal` requests (RFC 4254 §6.9) that cancel the running command. */
const CANCELLING_SIGNALS = new Set(['INT', 'TERM', 'HUP', 'KILL', 'QUIT']);

/**
 * Serves the sessions an authenticated client opens: `exec` runs one command; `shell` starts
 * the REPL when the client asked for a pty, or reads commands line by line when it did not.
 * A pty request is accepted (and only remembered: the front end emulates the terminal side,
 * or hands it to a VM shell, see {@link ClientTerminal}), as are window changes. Everything
 * else a session may ask for — environment variables, agent or X11 forwarding, subsystems
 * such as sftp — is refused, as are port forwardings, and sessions past {@link MAX_SESSIONS}.
 */
export function serveSessions(client: Connection, ctx: SessionContext): void {
  let open = 0;
  client.on('session', (accept, reject) => {
    if (open >= MAX_SESSIONS) return reject();
    open += 1;
    const session = accept();
    session.once('close', () => (open -= 1));
    let pty: PtyRequest | undefined;
    let terminal: ClientTerminal | undefined;
    let running: Interruptible | undefined;
    const terminalOn = (channel: ServerChannel) =>
      (terminal = pty === undefined ? undefined : new ClientTerminal(channel, pty));

    session.on('pty', (acceptPty, _reject, info) => {
      pty = { cols: info.cols, rows: info.rows, term: info.term };
      acceptPty?.();
    });
    session.on('window-change', (acceptChange, _reject, info) => {
      acceptChange?.();
      if (pty !== undefined) pty = { ...pty, cols: info.cols, rows: info.rows };
      terminal?.resize(info.cols, info.rows);
    });
    session.on('signal', (acceptSignal, _reject, info) => {
      acceptSignal?.();
      if (CANCELLING_SIGNALS.has(info.name)) running?.interrupt();
    });
    session.on('shell', (acceptShell) => {
      const channel = acceptShell();
      guardChannel(channel, ctx.wire);
      const onPty = terminalOn(channel);
      running = onPty ? startRepl(channel, ctx, onPty) : startLineShell(channel, ctx);
    });
    session.on('exec', (acceptExec, _reject, info) => {
      const channel = acceptExec();
      guardChannel(channel, ctx.wire);
      running = runExec(channel, info.command, terminalOn(channel), ctx);
    });
  });
}
