import { StoreConflictError, withUniqueMessages } from './conflicts.js';
import { writeTransaction, type StoreContext } from './context.js';
import { reflectionSecretRotation } from './reflection-secrets.js';

/** One email a VM is shared with. The email need not belong to an account (yet). */
export interface ShareRecord {
  vmId: number;
  email: string;
  addedAt: string;
}

export interface ShareStore {
  /** Shares the VM with `email`. Conflict: `vm "web" is already shared with a@b.c`. */
  addShare(vmId: number, email: string): ShareRecord;
  /**
   * Unshares, and gives the VM a new reflection secret (the old URL answers 404).
   * Conflict: `share not found: vm "web" is not shared with a@b.c` (clients of the real service look for "not found").
   */
  removeShare(vmId: number, email: string): void;
  /** The VM's shares, oldest first. */
  listShares(vmId: number): ShareRecord[];
}

interface ShareRow {
  vm_id: number;
  email: string;
  added_at: string;
}

const toRecord = (row: ShareRow): ShareRecord => ({
  vmId: row.vm_id,
  email: row.email,
  addedAt: row.added_at,
});

export function shareStore(ctx: StoreContext): ShareStore {
  const { db } = ctx;
  const vmName = db.prepare<[number], { name: string }>('SELECT name FROM vms WHERE id = ?');
  const rotate = reflectionSecretRotation(ctx);
  const insert = db.prepare<[number, string, string]>(
    'INSERT INTO vm_shares (vm_id, email, added_at) VALUES (?, ?, ?)',
  );
  const remove = db.prepare<[number, string]>(
    'DELETE FROM vm_shares WHERE vm_id = ? AND email = ?',
  );
  const byVm = db.prepare<[number], ShareRow>(
    'SELECT vm_id, email, added_at FROM vm_shares WHERE vm_id = ? ORDER BY added_at, email',
  );

  const requireVmName = (vmId: number): string => {
    const row = vmName.get(vmId);
    if (row === undefined) throw new StoreConflictError('not_found', 'vm no longer exists');
    return row.name;
  };

  return {
    addShare: writeTransaction(ctx, (vmId: number, email: string) => {
      const name = requireVmName(vmId);
      const addedAt = ctx.timestamp();
      withUniqueMessages(() => insert.run(vmId, email, addedAt), {
        'vm_shares.vm_id, vm_shares.email': `vm "${name}" is already shared with ${email}`,
      });
      return { vmId, email, addedAt };
    }),

    removeShare: writeTransaction(ctx, (vmId: number, email: string) => {
      const name = requireVmName(vmId);
      if (remove.run(vmId, email).changes === 0) {
        throw new StoreConflictError(
          'not_found',
          `share not found: vm "${name}" is not shared with ${email}`,
        );
      }
      rotate.ofVm(vmId);
    }),

    // Hot path (the VM proxy): served from the read cache while the database is unchanged.
    listShares(vmId) {
      return ctx.reads.get(`sh:${vmId}`, () => byVm.all(vmId)).map(toRecord);
    },
  };
}
