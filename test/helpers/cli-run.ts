// The client run in-process through main(), as a shell would run it, with its own config and
// cache folders: what it printed on each stream and the exit code it chose.
import { main } from '../../src/cli/main.js';
import { capturedProcess } from './io.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `exectl <argv>` in-process with `env` (HOME leads nowhere unless `env` says). */
export async function runCli(argv: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const captured = capturedProcess(env);
  const code = await main(argv, captured.proc);
  return { code, stdout: captured.stdout(), stderr: captured.stderr() };
}
