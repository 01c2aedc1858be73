// Share links of VMs (`share add-link`, SPEC §3): a random token that lets whoever opens
// `<https_url>?share=<token>` into the VM's site through the proxy, until it is removed.
import { randomBytes } from 'node:crypto';
import { StoreConflictError } from './conflicts.js';
import { writeTransaction, type StoreContext } from './context.js';

/** One link of a VM. `token` is a SECRET: it opens the VM's site to whoever holds it. */
export interface ShareLinkRecord {
  token: string;
  vmId: number;
  createdAt: string;
  /** How many times the link was opened (`?share=` redeemed). */
  useCount: number;
  lastUsedAt: string | null;
}

export interface ShareLinkStore {
  /** Makes a new link for the VM (128 random bits, base64url). */
  addShareLink(vmId: number): ShareLinkRecord;
  /** Removes one link of the VM; false when the VM has no such link. */
  removeShareLink(vmId: number, token: string): boolean;
  /** The VM's links, oldest first (`share show`'s `links[]`). */
  listShareLinks(vmId: number): ShareLinkRecord[];
  /** Hot path (the VM proxy): the VM's link `token`, or undefined for any other token. */
  findShareLink(vmId: number, token: string): ShareLinkRecord | undefined;
  /** Counts one opening of the link: `use_count` + 1, `last_used_at` now. */
  recordShareLinkUse(token: string): void;
}

interface LinkRow {
  token: string;
  vm_id: number;
  created_at: string;
  use_count: number;
  last_used_at: string | null;
}

const toRecord = (row: LinkRow): ShareLinkRecord => ({
  token: row.token,
  vmId: row.vm_id,
  createdAt: row.created_at,
  useCount: row.use_count,
  lastUsedAt: row.last_used_at,
});

const COLUMNS = 'token, vm_id, created_at, use_count, last_used_at';

/** The share links table's reads and writes. */
export function shareLinkStore(ctx: StoreContext): ShareLinkStore {
  const { db } = ctx;
  const vmExists = db.prepare<[number], { id: number }>('SELECT id FROM vms WHERE id = ?');
  const insert = db.prepare<[string, number, string]>(
    'INSERT INTO vm_share_links (token, vm_id, created_at) VALUES (?, ?, ?)',
  );
  const remove = db.prepare<[number, string]>(
    'DELETE FROM vm_share_links WHERE vm_id = ? AND token = ?',
  );
  const byVm = db.prepare<[number], LinkRow>(
    `SELECT ${COLUMNS} FROM vm_share_links WHERE vm_id = ? ORDER BY created_at, token`,
  );
  const one = db.prepare<[string], LinkRow>(
    `SELECT ${COLUMNS} FROM vm_share_links WHERE token = ?`,
  );
  const use = db.prepare<[string, string]>(
    'UPDATE vm_share_links SET use_count = use_count + 1, last_used_at = ? WHERE token = ?',
  );
  return {
    addShareLink: writeTransaction(ctx, (vmId: number) => {
      if (vmExists.get(vmId) === undefined) {
        throw new StoreConflictError('not_found', 'vm no longer exists');
      }
      const token = randomBytes(16).toString('base64url');
      const createdAt = ctx.timestamp();
      insert.run(token, vmId, createdAt);
      return { token, vmId, createdAt, useCount: 0, lastUsedAt: null };
    }),
    removeShareLink: writeTransaction(
      ctx,
      (vmId: number, token: string) => remove.run(vmId, token).changes > 0,
    ),
    listShareLinks: (vmId) => byVm.all(vmId).map(toRecord),
    findShareLink(vmId, token) {
      const row = ctx.reads.get(`sl:${token}`, () => one.get(token));
      // Another VM's link opens nothing here.
      return row === undefined || row.vm_id !== vmId ? undefined : toRecord(row);
    },
    recordShareLinkUse: writeTransaction(ctx, (token: string) => {
      use.run(ctx.timestamp(), token);
    }),
  };
}
