// `exectl serve reset` (SPEC §7): a data folder emptied of its state, so that the next start
// bootstraps again. The SSH host key stays: the server keeps its identity for known_hosts.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { removeDatabase } from './remove-database.js';
import { DATABASE_FILE, openStore } from './store.js';

/** What a reset removed. */
export interface ResetSummary {
  accounts: number;
  vms: number;
}

/**
 * Deletes every account, key, team, share, integration, svc1 token and VM with its disk of the
 * data folder `dataDir`. The caller holds the folder's lock, so no server runs on it. The
 * disks go before the database: a reset cut short leaves a database whose VMs have lost their
 * disks, never a fresh database next to old disks a new VM's id would collide with; running
 * it again finishes it.
 */
export function emptyDataFolder(dataDir: string): ResetSummary {
  const databasePath = join(dataDir, DATABASE_FILE);
  const store = openStore(databasePath);
  let summary: ResetSummary;
  try {
    const accounts = store.listAccounts();
    const vms = accounts.reduce((n, a) => n + store.listVmsOwnedBy(a.id).length, 0);
    summary = { accounts: accounts.length, vms };
  } finally {
    store.close();
  }
  // Where vm/vm-machines.ts puts each VM's disk: <data>/vms/<id>.
  rmSync(join(dataDir, 'vms'), { recursive: true, force: true });
  removeDatabase(databasePath);
  return summary;
}
