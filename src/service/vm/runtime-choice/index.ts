// Which runtime the server runs its VMs on, chosen once at start.
export { createRuntime } from './create-runtime.js';
export { detectRuntime, detectSandboxMode, type MachineOptions } from './detect-runtime.js';
