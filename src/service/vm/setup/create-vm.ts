// Creating a VM is the same in both runtimes: a disk, then the setup script run like any
// command; all or nothing.
import { commandFailed } from '../../../errors.js';
import { runSetupScript } from './setup-script.js';
import type { CreateOptions, VmRuntime, VmSpec } from '../runtime.js';

/**
 * Makes the disk with `makeDisk`, then runs the setup script through `runtime.exec`, its
 * output kept in `logPath` inside the VM (see setup-script.ts). On any failure the VM is
 * removed again before the error propagates: the script's failure as 422 `setup script failed
 * with exit code N: <last output line>`, an abort as the signal's reason.
 */
export async function createVm(
  runtime: Pick<VmRuntime, 'exec' | 'remove'>,
  vm: VmSpec,
  options: CreateOptions,
  logPath: string,
  makeDisk: () => Promise<void>,
): Promise<void> {
  options.signal?.throwIfAborted();
  await makeDisk();
  const script = options.setupScript;
  if (script === undefined || script === null || script === '') return;
  try {
    const outcome = await runSetupScript(
      (command, o) => runtime.exec(vm, command, o),
      script,
      logPath,
      options,
    );
    if (outcome.aborted) throw options.signal?.reason;
    if (outcome.exitCode !== 0) {
      // One short sentence (SPEC §3): the exit code and the script's last line of output,
      // which is where a failing command says why.
      const shown = outcome.lastLine === null ? '' : `: ${outcome.lastLine}`;
      throw commandFailed(`setup script failed with exit code ${outcome.exitCode}${shown}`);
    }
  } catch (err) {
    await runtime.remove(vm);
    throw err;
  }
}
