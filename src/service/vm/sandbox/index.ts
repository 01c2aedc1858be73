// The face of vm/sandbox/: what the other rooms of vm/ use of it.
export {
  clientMountArgs,
  clientMounts,
  ensureBaseSystem,
  hostSystem,
  type ClientMounts,
} from './base-system.js';
export { INFO_FD, machineBwrapArgs } from './bwrap-args.js';
export { InitRuntime } from './init-runtime.js';
export { joinCgroupsFirst, type JoinTarget } from './join-command.js';
export { watchInit, type VmInit } from './sandbox-init.js';
export { SandboxRuntime } from './sandbox-runtime.js';
export {
  BWRAP_TOOLS,
  findAll,
  findBwrapTools,
  serverIsRoot,
  type BwrapTools,
  type SandboxMode,
} from './tools.js';
