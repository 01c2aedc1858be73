// The store's public surface: the only way the rest of the service reaches SQLite.
export { DATABASE_FILE, openStore, type Store, type StoreOptions } from './store.js';
export { removeDatabase } from './remove-database.js';
export { lockDataFolder, type FolderLock } from './folder-lock.js';
export { StoreConflictError, type StoreConflictKind } from './conflicts.js';
export type { Account, AccountStore, RemovedAccount } from './accounts.js';
export type { KeyStore, NewSshKey, SshKeyRecord } from './keys.js';
export type { AccountTeam, TeamMember, TeamRecord, TeamRole, TeamStore } from './teams.js';
export type { TeamInvitation, TeamInvitee } from './team-invitations.js';
export type { NewVm, Visibility, VmImage, VmRecord, VmSetup, VmStatus, VmStore } from './vms.js';
export { DEFAULT_VM_LIMITS, type VmLimitsRecord } from './vm-records.js';
export type { ShareRecord, ShareStore } from './shares.js';
export type { ShareLinkRecord, ShareLinkStore } from './share-links.js';
export type { TeamAccessStore } from './team-access.js';
export {
  INTEGRATION_TYPES,
  REFLECTION_FIELDS,
  type AttachmentSpec,
  type IntegrationChanges,
  type IntegrationRecord,
  type IntegrationStore,
  type IntegrationType,
  type NewIntegration,
  type ReflectionField,
  type VmIdentity,
} from './integrations.js';
export type { DefaultRecord, DefaultsStore } from './defaults.js';
export type { DomainRecord, DomainStore } from './domains.js';
export {
  OUTBOX_PER_ACCOUNT,
  type MailStore,
  type NewOutboxMessage,
  type OutboxMessage,
} from './mail.js';
export type { Svc1Record, Svc1Request, Svc1Store } from './svc1.js';
export { emptyDataFolder, type ResetSummary } from './empty-data-folder.js';
