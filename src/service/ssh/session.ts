import type { Connection } from 'ssh2';
import { runExec } from './exec-session.js';
import { startLineShell } from './line-shell.js';
import { startRepl } from './repl.js';
import type { Interruptible, SessionContext } from './session-context.js';

/** SSH `signal` requests (RFC 4254 §6.9) that cancel the running command. */
const CANCELLING_SIGNALS = new Set(['INT', 'TERM', 'HUP', 'KILL', 'QUIT']);

/**
 * Serves the sessions an authenticated client opens: `exec` runs one command; `shell` starts
 * the REPL when the client asked for a pty, or reads commands line by line when it did not.
 * A pty request is accepted (and only remembered: the front end emulates the terminal side),
 * as are window changes. Everything else a session may ask for — environment variables,
 * agent or X11 forwarding, subsystems such as sftp — is refused, as are port forwardings.
 */
export function serveSessions(client: Connection, ctx: SessionContext): void {
  client.on('session', (accept) => {
    const session = accept();
    let pty = false;
    let running: Interruptible | undefined;

    session.on('pty', (acceptPty) => {
      pty = true;
      acceptPty?.();
    });
    session.on('window-change', (acceptChange) => acceptChange?.());
    session.on('signal', (acceptSignal, _reject, info) => {
      acceptSignal?.();
      if (CANCELLING_SIGNALS.has(info.name)) running?.interrupt();
    });
    session.on('shell', (acceptShell) => {
      const channel = acceptShell();
      running = pty ? startRepl(channel, ctx) : startLineShell(channel, ctx);
    });
    session.on('exec', (acceptExec, _reject, info) => {
      running = runExec(acceptExec(), info.command, pty, ctx);
    });
  });
}
