// The service's types that the package's public API names (src/index.ts, library/options.ts,
// library/start-server.ts): the library's second door into service/, for types only. A
// consumer's TypeScript loads every declaration file these reach, and better-sqlite3 ships no
// types of its own, so only modules whose declarations reach nothing of store/ belong here
// (test/e2e/package-install.test.ts type-checks a consumer without skipLibCheck).
export type { LogSink } from './config.js';
export type { FaultSpec } from './dispatch/faults.js';
export type { SeedDocument } from './seed/document.js';
