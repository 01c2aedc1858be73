// Creating a VM is the same in both runtimes: a disk, then the setup script run like any
// command; all or nothing.
import { commandFailed } from '../../errors.js';
import type { CreateOptions, ExecOptions, ExecResult, VmRuntime, VmSpec } from './types.js';

// Enough of the end of the output to see why a script failed, short enough for one message.
/** How much of the failing script's last output line the message quotes. */
const LAST_LINE_CHARS = 200;
const TAIL_BYTES = 1000;

/**
 * Makes the disk with `makeDisk`, then runs the setup script through `runtime.exec`. On any
 * failure the VM is removed again before the error propagates: the script's failure as 422
 * `setup script failed with exit code N: <output tail>`, an abort as the signal's reason.
 */
export async function createVm(
  runtime: Pick<VmRuntime, 'exec' | 'remove'>,
  vm: VmSpec,
  options: CreateOptions,
  makeDisk: () => Promise<void>,
): Promise<void> {
  options.signal?.throwIfAborted();
  await makeDisk();
  const script = options.setupScript;
  if (script === undefined || script === null || script === '') return;
  try {
    await runSetupScript((command, o) => runtime.exec(vm, command, o), script, options);
  } catch (err) {
    await runtime.remove(vm);
    throw err;
  }
}

async function runSetupScript(
  exec: (command: string, options: ExecOptions) => Promise<ExecResult>,
  script: string,
  options: ExecOptions,
): Promise<void> {
  let tail = Buffer.alloc(0);
  const result = await exec(script, {
    ...options,
    onOutput: (chunk) => {
      tail = Buffer.concat([tail, chunk]).subarray(-TAIL_BYTES);
      options.onOutput?.(chunk);
    },
  });
  if (result.aborted) throw options.signal?.reason;
  if (result.exitCode === 0) return;
  // One short sentence (SPEC §3): the exit code and the script's last line of output, which is
  // where a failing command says why.
  const lastLine = tail.toString('utf8').trim().split('\n').at(-1)?.trim() ?? '';
  const shown =
    lastLine.length > LAST_LINE_CHARS ? `${lastLine.slice(0, LAST_LINE_CHARS)}…` : lastLine;
  throw commandFailed(
    `setup script failed with exit code ${result.exitCode}${shown === '' ? '' : `: ${shown}`}`,
  );
}
