// A VM's setup script (SPEC §4): run once, inside, as root, its output kept in the VM. The
// script is never read by a host process: it travels as one quoted word of a command that
// only the VM's own /bin/sh runs (the exec path, process/in-vm-command.ts).
import { singleQuoted } from '../process/index.js';
import type { ExecOptions, ExecResult } from '../runtime.js';
import { scriptText } from '../scripts/index.js';

/** Where the script's output is kept inside a VM whose root file system is writable. */
export const SETUP_LOG = '/var/log/exectl-setup.log';

/** How much of the last output line `stat` and the error messages show. */
const LAST_LINE_CHARS = 200;

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
  const command = ['/bin/sh', '-c', scriptText('setup-wrapper.sh'), 'exectl-setup', script, logPath]
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
