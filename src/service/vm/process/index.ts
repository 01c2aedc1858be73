// The face of vm/process/: what the other rooms of vm/ use of it.
export { DEFAULT_PATH, commandEnv } from './command-env.js';
export { findExecutable } from './executables.js';
export { inVmLaunch, singleQuoted, SESSION_STDERR_FD } from './in-vm-command.js';
export { ProcessRuntime } from './process-runtime.js';
export { runCommand, type CommandLaunch } from './run-command.js';
export { findShellTools, shellCommand, shellEnv, sttySizeCommand } from './shell-command.js';
export type { TerminalProgram } from './shell-command.js';
export { startShellSession } from './shell-session.js';
export { startPipeSession } from './pipe-session.js';
export { pipeCommand, terminalProgram } from './session-command.js';
export { HostToolError, runHost, spawnHost, type ChildProcess } from './spawn-host.js';
