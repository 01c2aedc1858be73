// How a command, its environment and its words reach a process inside a VM without passing
// through any host-side process. The host-side launcher (nsenter, and the helpers before it)
// starts with a fixed environment of ours and an argv of ours only; the user's values travel
// as data on a pipe, and the first program that reads them already runs inside the VM.
//
// Why: a value such as LD_PRELOAD, LD_LIBRARY_PATH or GCONV_PATH in the environment of a
// host process running as root is code execution as root on the host; an argument is data
// that a host program parses. Inside the VM the same values can only affect the VM.

import { scriptText } from '../scripts/index.js';

/**
 * The fd on which the payload arrives (in-vm-command.sh reads it): 0-2 are the command's, 3 is
 * the shell's report.
 */
export const PAYLOAD_FD = 4;

/** The fd on which a session's command writes its own stderr (in-vm-session.sh). */
export const SESSION_STDERR_FD = 3;

/** The fixed part of a launch and the data that carries everything of the user's. */
interface InVmLaunch {
  /** Appended after the host-side launcher's own argv (e.g. nsenter's `--`): fixed words. */
  argv: string[];
  /** The shell line that starts the program with exactly its env; write it to {@link PAYLOAD_FD}. */
  payload: Buffer;
}

/**
 * The launch of `argv` inside a VM with exactly `env`. Names are shell variable names
 * (checked at `new`), so no name can look like an option of env; values and words may hold
 * anything but NUL, which no environment or argv can hold either. The program's stderr is
 * joined to its stdout, or, with `stderrApart` (an SSH session), goes to fd
 * {@link SESSION_STDERR_FD} of the launcher, apart from the launcher's own stderr.
 *
 * @throws Error when a word or value holds a NUL byte (the caller validated them: a bug).
 */
export function inVmLaunch(
  env: Readonly<Record<string, string>>,
  argv: readonly string[],
  stderrApart = false,
): InVmLaunch {
  const words = [...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv];
  if (words.some((w) => w.includes('\0'))) throw new Error('a launch word holds a NUL byte');
  const line = ['exec', '/usr/bin/env', '-i', '--', ...words.map(singleQuoted)].join(' ');
  const script = scriptText(stderrApart ? 'in-vm-session.sh' : 'in-vm-command.sh');
  return { argv: ['/bin/sh', '-c', script], payload: Buffer.from(line) };
}

/** `text` as one POSIX shell word: inside single quotes nothing is special but `'` itself. */
export function singleQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
