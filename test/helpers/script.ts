import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * Runs `script` (an ES module, TypeScript allowed through tsx) in a fresh node process started
 * through `setpriv` with `setprivArgs` (another uid, other groups), and resolves with its
 * stdout. For tests that need the server code under different credentials.
 */
export async function runScriptAs(setprivArgs: readonly string[], script: string): Promise<string> {
  const argv = [...setprivArgs, '--', process.execPath, '--import', 'tsx'];
  const { stdout } = await promisify(execFile)('setpriv', [
    ...argv,
    '--input-type=module',
    '-e',
    script,
  ]);
  return stdout;
}

/** `setpriv` arguments for a non-root server with uid and gid `id` and no extra groups. */
export function asUser(id: number): string[] {
  return [`--reuid=${id}`, `--regid=${id}`, '--clear-groups'];
}
