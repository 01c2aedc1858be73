// SPEC §5: "The secret changes whenever who may run commands in the VM changes (share remove,
// rm, rename, a team member leaving): an old URL then answers 404." The store's changes that do
// so call these inside their own transaction, so no moment exists where the change is stored
// and the old secret still works. (`rm` deletes the record, and its secret with it.)
import type { StoreContext } from './context.js';
import { newReflectionSecret } from './random-ids.js';

export interface ReflectionSecretRotation {
  /** A fresh secret for one VM. */
  ofVm(vmId: number): void;
  /** A fresh secret for every VM these accounts own, each its own. */
  ofAccounts(accountIds: readonly number[]): void;
}

/** The rotation statements; call them only inside a write transaction of the store. */
export function reflectionSecretRotation({ db }: StoreContext): ReflectionSecretRotation {
  const set = db.prepare<[string, number]>('UPDATE vms SET reflection_secret = ? WHERE id = ?');
  const owned = db.prepare<[number], { id: number }>('SELECT id FROM vms WHERE account_id = ?');
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
  };
}
