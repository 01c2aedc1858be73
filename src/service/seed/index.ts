// The `--seed` format (exectl-serve(1), SEED FILE): parsing it, applying it at start or by
// `serve import`, and (export.ts) writing a data folder's state in it.
export { applySeed, type SeedTarget } from './apply.js';
export type { SeedChanges } from './conflict.js';
export { SeedFormatError } from './json-at.js';
export { parseSeed, type Seed } from './parse.js';
export { exportSeed } from './export.js';
export type { ExportOptions, SeedDocument } from './document.js';
