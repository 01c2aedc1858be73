// The face of vm/scripts/: what the other rooms of vm/ use of it.
export { scriptText, type ScriptName } from './load.js';
