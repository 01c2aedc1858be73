// What runs inside a VM for an interactive shell, and what it reports back.
//
// Node cannot make a pseudo-terminal without a native module, so util-linux `script` (beside
// nsenter on every system, and visible inside a VM through the read-only /usr) makes one
// where the shell runs: inside the VM, on the VM's own /dev/pts. Our side of it is plain
// pipes: `script` copies the pipe we write into the terminal, and the terminal's output to
// the pipe we read. With its stdin not a terminal, `script` neither forwards window sizes
// nor changes modes, so the pty keeps the kernel defaults (echo, line editing, Ctrl-C as
// SIGINT, `\n` out as `\r\n`): the shell's own terminal does everything sshd's pty would.
import { findExecutable } from './executables.js';
import { commandFailed } from '../../../errors.js';
import { singleQuoted } from './in-vm-command.js';
import type { PtySpec } from '../runtime.js';

/** The fd on which the shell's first words, {@link ShellReport}, come back. */
export const REPORT_FD = 3;

/** A terminal size the kernel takes (its winsize fields are 16-bit; 0 means unknown). */
export interface PtySize {
  cols: number;
  rows: number;
}

/** What the shell says about itself before it starts (see {@link shellCommand}). */
export interface ShellReport {
  /** Its pid as the VM sees it (the host's pid in the process runtime). */
  pid: number;
  /** Its terminal, e.g. `/dev/pts/0`, as the VM sees it. */
  tty: string;
}

/** The system tools the shell needs, by absolute path (the same inside a VM: /usr is shared). */
export interface ShellTools {
  script: string;
  stty: string;
  tty: string;
}

const MAX_SIDE = 0xffff;
const TERM_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;
const REPORT_PATTERN = /^([1-9]\d{0,9}) (\/dev\/pts\/\d{1,9})\n/;

/**
 * `cols` × `rows` when both are whole numbers from 1 to 65535, else undefined: a client that
 * does not know its size sends 0, and such a terminal is left at the kernel's default.
 */
export function ptySize(cols: number, rows: number): PtySize | undefined {
  const fits = (n: number) => Number.isInteger(n) && n >= 1 && n <= MAX_SIDE;
  return fits(cols) && fits(rows) ? { cols, rows } : undefined;
}

/** The TERM a client asked for, when it is a plain terminal name; `dumb` otherwise. */
export function termName(term: string): string {
  return TERM_PATTERN.test(term) ? term : 'dumb';
}

/**
 * `script`, `stty` and `tty` from the system folders.
 * @throws ExectlError 422 when util-linux or coreutils lack one of them on this server.
 */
export function findShellTools(): ShellTools {
  const [script, stty, tty] = ['script', 'stty', 'tty'].map((name) => findExecutable(name));
  if (script === undefined || stty === undefined || tty === undefined) {
    throw commandFailed('interactive shells need script, stty and tty on the server', {
      hint: 'install util-linux and coreutils there, or give ssh a command to run',
    });
  }
  return { script, stty, tty };
}

/**
 * The env of the shell on top of the runtime's: TERM from the client, and SHELL=/bin/sh for
 * `script`, which runs its `-c` command with `$SHELL` (a VM's `--env SHELL=fish` must not
 * change how our POSIX command is read); the command then sets SHELL to the shell it starts.
 */
export function shellEnv(pty: PtySpec): Record<string, string> {
  return { TERM: termName(pty.term), SHELL: '/bin/sh' };
}

/**
 * The `/bin/sh -c` command that starts the shell: `script` makes the pty and runs, on it, a
 * prologue that sets the client's size, reports `<pid> <tty>` on {@link REPORT_FD} (so the
 * size can be changed later from outside, and the process runtime can find the shell's
 * session), closes that fd, and becomes the shell: bash when installed (line editing,
 * history), else `/bin/sh`. `script -e` exits with the shell's status. An SSH session's
 * terminal (`program`) runs its command (a login shell, a command, sftp) instead.
 */
export function shellCommand(tools: ShellTools, pty: PtySpec, program?: TerminalProgram): string {
  const size = ptySize(pty.cols, pty.rows);
  const prologue = [
    ...(size === undefined ? [] : [sttySizeCommand(tools, undefined, size)]),
    `printf '%s %s\\n' "$$" "$(${tools.tty})" >&${REPORT_FD}`,
    `exec ${REPORT_FD}>&-`,
    'if [ -x /bin/bash ]; then SHELL=/bin/bash; fi',
    'export SHELL',
    programLine(program),
  ].join('; ');
  return `exec ${tools.script} -qec ${singleQuoted(prologue)} /dev/null`;
}

/**
 * What an SSH session runs on its terminal (SPEC §6a): its command with `/bin/sh -c` (a login
 * shell is login-shell.sh's). Absent: the interactive shell of `ssh <vm>` in the lobby.
 */
export interface TerminalProgram {
  command: string;
}

function programLine(program: TerminalProgram | undefined): string {
  if (program === undefined) return 'exec "$SHELL" -i';
  return `exec /bin/sh -c ${singleQuoted(program.command)}`;
}

/** The command that sets the size of the terminal `tty` (a checked `/dev/pts/N` path). */
export function sttySizeCommand(tools: ShellTools, tty: string | undefined, size: PtySize): string {
  const target = tty === undefined ? '' : ` -F ${tty}`;
  return `${tools.stty}${target} cols ${size.cols} rows ${size.rows}`;
}

/**
 * The report at the start of `text`, once its line is complete; undefined while it is not,
 * or when the line is not `<pid> /dev/pts/<n>` (then nothing is ever resized).
 */
export function parseShellReport(text: string): ShellReport | undefined {
  const match = REPORT_PATTERN.exec(text);
  if (match === null) return undefined;
  return { pid: Number(match[1]), tty: match[2]! };
}
