import { ExectlError } from '../../errors.js';
import { BwrapRuntime } from './bwrap-runtime.js';
import { ProcessRuntime } from './process-runtime.js';
import { findBwrapTools, sandboxIdentity } from './sandbox-identity.js';
import type { RuntimeKind, VmRuntime } from './types.js';

/**
 * A runtime of the given kind (usually the one `detectRuntime` chose). As root, bwrap
 * VMs run as the unprivileged id 65534; otherwise as the server's user.
 */
export function createRuntime(kind: RuntimeKind): VmRuntime {
  if (kind === 'process') return new ProcessRuntime();
  const tools = findBwrapTools();
  if ('missing' in tools) {
    throw new ExectlError(
      'cannot_start',
      `the bwrap runtime cannot run here: ${tools.missing} is not installed`,
    );
  }
  return new BwrapRuntime(tools, sandboxIdentity());
}
