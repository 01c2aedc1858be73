import { ExectlError } from '../../../errors.js';
import { MachineRuntime } from '../machine/index.js';
import { ProcessRuntime } from '../process/index.js';
import { SandboxRuntime } from '../sandbox/index.js';
import { findBwrapTools, type BwrapTools, type SandboxMode } from '../sandbox/index.js';
import type { RuntimeKind, VmRuntime } from '../runtime.js';

/**
 * A runtime of the given kind (usually the one `detectRuntime` chose), its bwrap VMs run in
 * `mode` (machines when the server is root; see `detectSandboxMode`).
 */
export function createRuntime(kind: RuntimeKind, mode: SandboxMode): VmRuntime {
  if (kind === 'process') return new ProcessRuntime();
  const tools = findBwrapTools();
  if ('missing' in tools) {
    throw new ExectlError(
      'cannot_start',
      `the bwrap runtime cannot run here: ${tools.missing} is not installed`,
    );
  }
  return bwrapRuntime(tools, mode);
}

/** The bwrap runtime of `mode`: machines for a root server, else the sandbox of a user. */
export function bwrapRuntime(tools: BwrapTools, mode: SandboxMode): VmRuntime {
  return mode.kind === 'machine'
    ? new MachineRuntime(mode)
    : new SandboxRuntime(tools, mode.client);
}
