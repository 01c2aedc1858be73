// What an SSH session's program is, as the `/bin/sh -c` text that runs it inside the VM.
import { scriptText } from '../scripts/index.js';
import type { SessionProgram } from '../runtime.js';
import type { TerminalProgram } from './shell-command.js';

/** The `/bin/sh -c` text of a session without a terminal. */
export function pipeCommand(program: SessionProgram): string {
  switch (program.kind) {
    case 'exec':
      return program.command;
    case 'shell':
      return scriptText('login-shell.sh');
    case 'sftp':
      return scriptText('sftp-server.sh');
  }
}

/**
 * What runs on a session's terminal: the same as without one, {@link pipeCommand} (a `shell`
 * is then interactive because its stdin is the terminal).
 */
export function terminalProgram(program: SessionProgram): TerminalProgram {
  return { command: pipeCommand(program) };
}
