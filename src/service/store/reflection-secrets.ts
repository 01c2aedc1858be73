// SPEC §5: "The secret changes whenever who may run commands in the VM changes (share remove,
// rm, rename, a team member leaving): an old URL then answers 404." A key removed is such a
// change too: whoever held it may have read the URL inside a VM it reached (a revoked CI key
// would otherwise keep the integrations). The store's changes that do so call these inside
// their own transaction, so no moment exists where the change is stored
// and the old secret still works. (`rm` deletes the record, and its secret with it.)
import type { StoreContext } from './context.js';
import { newReflectionSecret } from './random-ids.js';

export interface ReflectionSecretRotation {
  /** A fresh secret for one VM. */
  ofVm(vmId: number): void;
  /** A fresh secret for every VM these accounts own, each its own. */
  ofAccounts(accountIds: readonly number[]): void;
  /**
   * A fresh secret for every VM a key of this account reaches: the account's own VMs and those
   * shared with it, for a tag-scoped key (`tag` not null) only those carrying the tag.
   */
  ofVmsReachedBy(accountId: number, tag: string | null): void;
}

/** The rotation statements; call them only inside a write transaction of the store. */
export function reflectionSecretRotation({ db }: StoreContext): ReflectionSecretRotation {
  const set = db.prepare<[string, number]>('UPDATE vms SET reflection_secret = ? WHERE id = ?');
  const owned = db.prepare<[number], { id: number }>('SELECT id FROM vms WHERE account_id = ?');
  const reached = db.prepare<[{ accountId: number; tag: string | null }], { id: number }>(
    `SELECT v.id FROM vms v
     WHERE v.id IN (
       SELECT id FROM vms WHERE account_id = @accountId
       UNION
       SELECT vm_id FROM vm_shares WHERE email = (SELECT email FROM accounts WHERE id = @accountId))
     AND (@tag IS NULL OR EXISTS (SELECT 1 FROM vm_tags t WHERE t.vm_id = v.id AND t.tag = @tag))`,
  );
  const ofVm = (vmId: number) => {
    set.run(newReflectionSecret(), vmId);
  };
  return {
    ofVm,
    ofAccounts(accountIds) {
      for (const accountId of accountIds) {
        for (const { id } of owned.all(accountId)) ofVm(id);
      }
    },
    ofVmsReachedBy(accountId, tag) {
      for (const { id } of reached.all({ accountId, tag })) ofVm(id);
    },
  };
}
