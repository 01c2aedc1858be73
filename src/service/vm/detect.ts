// Choosing the runtime at server start: bwrap when a real test sandbox starts and answers.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExectlError } from '../../errors.js';
import { BwrapRuntime } from './bwrap-runtime.js';
import { DEFAULT_PATH } from './command-env.js';
import { findBwrapTools, sandboxIdentity } from './sandbox-identity.js';
import type { DetectedRuntime, RuntimeChoice } from './types.js';

const PROBE_TIMEOUT_MS = 10_000;

/**
 * Which runtime to use for `--runtime choice`. `auto`: bwrap when a test VM, made exactly as
 * real ones are, starts and runs `true`; otherwise process, with the reason (the server prints
 * it loudly). `bwrap` that cannot run throws ExectlError `usage` with the reason. `process`
 * is taken as asked, without a probe.
 */
export async function detectRuntime(choice: RuntimeChoice): Promise<DetectedRuntime> {
  if (choice === 'process') return { kind: 'process' };
  const problem = await bwrapProblem();
  if (problem === undefined) return { kind: 'bwrap' };
  if (choice === 'bwrap') {
    throw new ExectlError('cannot_start', `the bwrap runtime cannot run here: ${problem}`, {
      hint: 'install bubblewrap and allow user namespaces, or choose --runtime process',
    });
  }
  return {
    kind: 'process',
    reason: `bubblewrap cannot run here (${problem}); VM commands run as plain processes, without isolation`,
  };
}

/** Why bwrap VMs cannot run here, or undefined when a test VM works. */
async function bwrapProblem(): Promise<string | undefined> {
  const tools = findBwrapTools();
  if ('missing' in tools) return `${tools.missing} was not found in ${DEFAULT_PATH}`;
  const dir = await mkdtemp(join(tmpdir(), 'exectl-probe-'));
  const runtime = new BwrapRuntime(tools, sandboxIdentity());
  const vm = { name: 'probe', diskDir: join(dir, 'disk'), env: {} };
  try {
    await runtime.create(vm);
    const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
    const result = await runtime.exec(vm, 'true', { signal });
    if (result.aborted) return `a test VM did not answer within ${PROBE_TIMEOUT_MS / 1000}s`;
    if (result.exitCode !== 0) return `a test VM ended with exit code ${result.exitCode}`;
    return undefined;
  } catch (err) {
    return err instanceof Error ? (err.message.split('\n')[0] ?? err.message) : String(err);
  } finally {
    await runtime.shutdown();
    await rm(dir, { recursive: true, force: true });
  }
}
