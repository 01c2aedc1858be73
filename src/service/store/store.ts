import type Database from 'better-sqlite3';
import { accountStore, type AccountStore } from './accounts.js';
import { openDatabase } from './connection.js';
import { timestampClock, type StoreContext } from './context.js';
import { defaultsStore, type DefaultsStore } from './defaults.js';
import { domainStore, type DomainStore } from './domains.js';
import { integrationStore, type IntegrationStore } from './integrations.js';
import { KeyUseBuffer } from './key-usage.js';
import { keyStore, type KeyStore } from './keys.js';
import { mailStore, type MailStore } from './mail.js';
import { migrate } from './migrate.js';
import { openError } from './open-errors.js';
import { ReadCache } from './read-cache.js';
import { shareLinkStore, type ShareLinkStore } from './share-links.js';
import { shareStore, type ShareStore } from './shares.js';
import { svc1Store, type Svc1Store } from './svc1.js';
import { teamAccessStore, type TeamAccessStore } from './team-access.js';
import { teamStore, type TeamStore } from './teams.js';
import { vmStore, type VmStore } from './vms.js';

/**
 * The server's persistence. Every method is synchronous and every write is one transaction:
 * when a write method returns, the change is committed and durable. Refused changes throw
 * `StoreConflictError` (422 `command_failed`); a record that does not exist is
 * `undefined` from a getter. The store checks integrity only — who may do what is for the
 * commands to decide.
 */
export interface Store
  extends
    AccountStore,
    KeyStore,
    TeamStore,
    VmStore,
    ShareStore,
    IntegrationStore,
    Svc1Store,
    DefaultsStore,
    DomainStore,
    ShareLinkStore,
    TeamAccessStore,
    MailStore {
  /** The database file. */
  readonly path: string;
  /**
   * A number that moves whenever the data may have changed (an own write, another process's
   * commit): what a caller worked out from reads under one value still holds while it is the
   * same (the VM proxy's admissions, http/admission-memo.ts).
   */
  dataGeneration(): number;
  /** Flushes buffered key-use times and closes the database. Calling it again does nothing. */
  close(): void;
}

/** The database's file name inside a data folder. */
export const DATABASE_FILE = 'exectl.db';

export interface StoreOptions {
  /** The clock for every timestamp the store writes. Default: the system clock. */
  now?: () => Date;
  /** Longest delay before buffered key-use times are written. Default 5000 ms. */
  keyUseFlushMs?: number;
  /** How long a write waits for another process's write lock. Default 5000 ms. */
  busyTimeoutMs?: number;
}

/**
 * Opens the store at `path` (a file, e.g. `<data>/exectl.db`; its folder must exist), creating
 * the database and applying pending schema migrations.
 */
export function openStore(path: string, options: StoreOptions = {}): Store {
  const now = options.now ?? (() => new Date());
  let db: Database.Database;
  try {
    db = openDatabase(path, options.busyTimeoutMs ?? 5000);
  } catch (error) {
    throw openError(path, error);
  }
  try {
    migrate(db);
  } catch (error) {
    db.close();
    throw openError(path, error);
  }
  const ctx: StoreContext = { db, timestamp: timestampClock(now), reads: new ReadCache(db) };
  const keyUse = new KeyUseBuffer(ctx, options.keyUseFlushMs ?? 5000);
  const integrations = integrationStore(ctx);
  const vms = vmStore(ctx);
  const keys = keyStore(ctx, keyUse);

  return {
    path,
    ...accountStore(ctx, { ...integrations, ...vms, ...keys }),
    ...keys,
    ...teamStore(ctx),
    ...vms,
    ...shareStore(ctx),
    ...integrations,
    ...svc1Store(ctx),
    ...defaultsStore(ctx),
    ...domainStore(ctx),
    ...shareLinkStore(ctx),
    ...teamAccessStore(ctx),
    ...mailStore(ctx),
    dataGeneration: () => ctx.reads.generation(),
    close() {
      if (!db.open) return;
      try {
        keyUse.flush();
      } finally {
        db.close();
      }
    },
  };
}
