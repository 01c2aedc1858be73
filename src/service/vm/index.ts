// The VM runtimes (SPEC §4): the only room of the service that spawns processes.
export { DEFAULT_VM_LIMITS } from './contract.js';
export type {
  EnforcedLimits,
  VmExecOptions,
  VmLimits,
  VmListeners,
  VmMachines,
  VmShellOptions,
  VmShellSession,
  VmState,
  VmUsage,
} from './contract.js';
export type {
  CreateOptions,
  DetectedRuntime,
  ExecOptions,
  ExecResult,
  PtySpec,
  RuntimeChoice,
  RuntimeKind,
  ShellOptions,
  ShellSession,
  VmRef,
  VmRuntime,
  VmSpec,
} from './runtime.js';
export { createRuntime } from './runtime-choice/index.js';
export { detectRuntime, detectSandboxMode, type MachineOptions } from './runtime-choice/index.js';
export { startVmMachines, type RunningVmMachines, type VmMachinesDeps } from './fleet/index.js';
export { releaseVmIdRanges } from './id-ranges.js';
