// The face of vm/machine/: what the other rooms of vm/ use of it.
export { type MachineInit } from './machine-boot.js';
export { findMachineTools, type MachineHost, type MachineTools } from './machine-host.js';
export { prepareRunDir } from './machine-life.js';
export { MachineRuntime } from './machine-runtime.js';
