// The admin room: `exectl serve accounts` on a data folder, offline or through a running
// server's admin socket, with one set of operations for both.
export {
  addAccount,
  checkAccountEmail,
  listAccountSummaries,
  removeAccountByEmail,
  type AccountSummary,
  type AddedAccount,
  type RemovedAccountSummary,
} from './accounts-admin.js';
export { listOutboxSummaries, type OutboxSummary } from './mail-admin.js';
export {
  adminSocketPath,
  answerError,
  MAX_ADMIN_REQUEST_BYTES,
  type AdminAnswer,
  type AdminRequest,
} from './protocol.js';
export { startAdminSocket, type AdminSocket } from './socket.js';
