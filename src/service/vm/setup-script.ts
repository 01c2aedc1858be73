// A VM's setup script (SPEC §4): run once, inside, as root, its output kept in the VM. The
// script is never read by a host process: it travels as one quoted word of a command that
// only the VM's own /bin/sh runs (the exec path, process/in-vm-command.ts).
import { singleQuoted } from './process/in-vm-command.js';
import type { ExecOptions, ExecResult } from './runtime.js';

/** Where the script's output is kept inside a VM whose root file system is writable. */
export const SETUP_LOG = '/var/log/exectl-setup.log';

/** How much of the last output line `stat` and the error messages show. */
const LAST_LINE_CHARS = 200;

// Inside the VM: the output goes to the log file, not through a pipe, so a server the script
// leaves running in the background never holds the setup open. Where the root is read-only
// (a VM without a root file system of its own, the process runtime) the log is in $HOME.
// Then the last non-blank line of the log is the command's whole output.
// $1: the script; $2: the log ('' = $HOME's).
const WRAPPER = [
  'log=${2:-"$HOME/exectl-setup.log"}',
  '{ mkdir -p "${log%/*}" && : > "$log"; } 2>/dev/null || { log="$HOME/exectl-setup.log"; : > "$log"; } || exit 125',
  '/bin/sh -c "$1" > "$log" 2>&1 < /dev/null',
  'code=$?',
  'grep -v \'^[[:space:]]*$\' "$log" | tail -n 1',
  'exit $code',
].join('\n');

/** How a setup script ended. */
interface SetupOutcome {
  exitCode: number;
  /** The end of the signal's life: the script's tree was killed. */
  aborted: boolean;
  /** The last non-blank line of its output, cut to 200 characters; null when it printed none. */
  lastLine: string | null;
}

/**
 * Runs `script` through `exec` (a runtime's exec of this VM), its output into `logPath` inside
 * the VM (`''`: `$HOME/exectl-setup.log`).
 */
export async function runSetupScript(
  exec: (command: string, options: ExecOptions) => Promise<ExecResult>,
  script: string,
  logPath: string,
  options: ExecOptions,
): Promise<SetupOutcome> {
  let output = '';
  const command = ['/bin/sh', '-c', WRAPPER, 'exectl-setup', script, logPath]
    .map(singleQuoted)
    .join(' ');
  const result = await exec(command, {
    ...options,
    onOutput: (chunk) => {
      if (output.length < 64 * 1024) output += chunk.toString('utf8');
    },
  });
  const line = output.trim().split('\n').at(-1)?.trim() ?? '';
  const lastLine = line === '' ? null : shortLine(line);
  return { exitCode: result.exitCode, aborted: result.aborted, lastLine };
}

/** The first line of `text`, cut to 200 characters (`…` marks a cut): one line for `stat`. */
export function shortLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > LAST_LINE_CHARS ? `${line.slice(0, LAST_LINE_CHARS)}…` : line;
}
