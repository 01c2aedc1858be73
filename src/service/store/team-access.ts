// Team SSH access of VMs (`share access allow|disallow`, SPEC §3): whether the members of the
// owner's team may ssh into the VM. Off unless the owner allows it.
import { writeTransaction, type StoreContext } from './context.js';

export interface TeamAccessStore {
  /** Allows (or stops allowing) the owner's team members to ssh into the VM. */
  setTeamAccess(vmId: number, allowed: boolean): void;
  /** Hot path (every ssh door): whether the owner's team members may ssh into the VM. */
  hasTeamAccess(vmId: number): boolean;
}

/** The team access table's reads and writes. */
export function teamAccessStore(ctx: StoreContext): TeamAccessStore {
  const { db } = ctx;
  const allow = db.prepare<[number, string]>(
    'INSERT INTO vm_team_access (vm_id, allowed_at) VALUES (?, ?) ON CONFLICT (vm_id) DO NOTHING',
  );
  const disallow = db.prepare<[number]>('DELETE FROM vm_team_access WHERE vm_id = ?');
  const has = db.prepare<[number], { vm_id: number }>(
    'SELECT vm_id FROM vm_team_access WHERE vm_id = ?',
  );
  return {
    setTeamAccess: writeTransaction(ctx, (vmId: number, allowed: boolean) => {
      if (allowed) allow.run(vmId, ctx.timestamp());
      else disallow.run(vmId);
    }),
    hasTeamAccess: (vmId) => ctx.reads.get(`ta:${vmId}`, () => has.get(vmId) !== undefined),
  };
}
