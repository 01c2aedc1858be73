// The one door into the service, for `exectl serve` (cli/commands/serve/) and the library's
// startServer (library/) alike: what they need to read their options, prepare a data folder,
// bootstrap the owner, apply a seed and start. Nothing outside service/ imports anything else
// of it (test/unit/architecture.test.ts).
export {
  DEFAULTS,
  parseListenAddress,
  type ListenAddress,
  type LogLevel,
  type LogSink,
  type ServiceConfig,
} from './config.js';
export { parseRateLimit, type RateLimit } from './rules/rate-limit.js';
export { parseRegistrableKey } from './rules/registrable-key.js';
export { registrySettingsError } from './rules/registry-settings.js';
export { FaultTable, type FaultSpec } from './dispatch/faults.js';
export { openSshPrivateKey } from './ssh/host-key.js';
export type { VmCeilings } from './rules/ceilings.js';
export { MIN_DISK, MIN_MEMORY, parseCpus, parseSize } from './rules/limit-values.js';
export { checkEmail, quote } from './rules/validate.js';
export {
  DATABASE_FILE,
  emptyDataFolder,
  lockDataFolder,
  openStore,
  type Store,
} from './store/index.js';
export {
  bootstrapOwner,
  ensureAccount,
  hasNoAccounts,
  parseKeyLines,
  type KeyLine,
  type RejectedKeyLine,
} from './accounts.js';
export { applySeed, exportSeed, parseSeed, type Seed } from './seed/index.js';
export type { SeedDocument } from './seed/document.js';
export {
  addAccount,
  adminSocketPath,
  answerError,
  checkAccountEmail,
  listAccountSummaries,
  listOutboxSummaries,
  MAX_ADMIN_REQUEST_BYTES,
  removeAccountByEmail,
  type AccountSummary,
  type AddedAccount,
  type AdminAnswer,
  type AdminRequest,
  type OutboxSummary,
  type RemovedAccountSummary,
} from './admin/index.js';
export { releaseVmIdRanges } from './vm/index.js';
export {
  createService,
  startService,
  type RunningService,
  type StartOptions,
  type StartServiceOptions,
  type StartedService,
} from './boot.js';
