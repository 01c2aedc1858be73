// The face of vm/scripts/: what the other rooms of vm/ use of it.
export { scriptPath, scriptText, type ScriptName } from './load.js';
