import { StoreConflictError, withUniqueMessages } from './conflicts.js';
import { writeTransaction, type StoreContext } from './context.js';
import type { IntegrationStore } from './integrations.js';
import { newUserId } from './random-ids.js';
import type { KeyStore, NewSshKey } from './keys.js';
import type { VmRecord, VmStore } from './vms.js';

export interface Account {
  /** Internal key; other records refer to the account by it. */
  id: number;
  /** Public id, `usr_` + 16 base32 characters. */
  userId: string;
  /** Unique, compared case-insensitively; kept as first written. */
  email: string;
  createdAt: string;
  /** Where its next VMs are made (`set-region`): a code of rules/regions.ts, `local` at first. */
  region: string;
}

/** What `removeAccount` deleted; the VM runtime still has to remove these VMs' disks. */
export interface RemovedAccount {
  account: Account;
  vms: VmRecord[];
}

export interface AccountStore {
  /**
   * Creates the account, its own team (`<local part>'s team`, the account as owner), its
   * default integration `reflection` attached `auto:all` and the given SSH keys, all in one
   * transaction: when anything is refused (`account a@b.c already exists`, or a key conflict
   * as in `addKey`), nothing is created.
   */
  createAccount(email: string, keys?: readonly Omit<NewSshKey, 'accountId'>[]): Account;
  findAccountByEmail(email: string): Account | undefined;
  /** The account, or undefined. Hot path: served from the read cache while nothing changed. */
  getAccount(accountId: number): Account | undefined;
  /** Every account, oldest first. */
  listAccounts(): Account[];
  /**
   * Deletes the account with its keys (and their svc1 handles), team, VM records, integrations
   * and every share of a VM with its email. Refused with a `team_has_members` conflict
   * (`a@b.c owns a team with other members`) while others are in its team.
   */
  removeAccount(accountId: number): RemovedAccount;
  /** Records the region of the account's next VMs (its VMs keep theirs). */
  setRegion(accountId: number, region: string): void;
}

interface AccountRow {
  id: number;
  user_id: string;
  email: string;
  created_at: string;
  region: string;
}

const ACCOUNT_COLUMNS = 'id, user_id, email, created_at, region';

const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  userId: row.user_id,
  email: row.email,
  createdAt: row.created_at,
  region: row.region,
});

/** Everything before the last `@` (local parts may themselves contain a quoted `@`). */
function teamNameFor(email: string): string {
  const at = email.lastIndexOf('@');
  return `${at > 0 ? email.slice(0, at) : email}'s team`;
}

export function accountStore(
  ctx: StoreContext,
  deps: Pick<IntegrationStore, 'createIntegration'> &
    Pick<VmStore, 'listVmsOwnedBy'> &
    Pick<KeyStore, 'addKey'>,
): AccountStore {
  const { db } = ctx;
  const insert = db.prepare<[string, string, string], AccountRow>(
    `INSERT INTO accounts (user_id, email, created_at) VALUES (?, ?, ?) RETURNING ${ACCOUNT_COLUMNS}`,
  );
  const insertTeam = db.prepare<[string, number, string]>(
    'INSERT INTO teams (name, owner_account_id, created_at) VALUES (?, ?, ?)',
  );
  const insertOwnerMembership = db.prepare<[number, number, string]>(
    `INSERT INTO team_members (account_id, team_id, role, joined_at) VALUES (?, ?, 'owner', ?)`,
  );
  const byId = db.prepare<[number], AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`,
  );
  const byEmail = db.prepare<[string], AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE email = ?`,
  );
  const all = db.prepare<[], AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY id`);
  const othersInOwnTeam = db.prepare<[{ accountId: number }], { n: number }>(
    `SELECT count(*) AS n FROM team_members m JOIN teams t ON t.id = m.team_id
     WHERE t.owner_account_id = @accountId AND m.account_id <> @accountId`,
  );
  const dropSharesWith = db.prepare<[string]>('DELETE FROM vm_shares WHERE email = ?');
  const remove = db.prepare<[number]>('DELETE FROM accounts WHERE id = ?');
  const updateRegion = db.prepare<[string, number]>('UPDATE accounts SET region = ? WHERE id = ?');

  return {
    createAccount: writeTransaction(
      ctx,
      (email: string, keys: readonly Omit<NewSshKey, 'accountId'>[] = []) => {
        const createdAt = ctx.timestamp();
        const row = withUniqueMessages(() => insert.get(newUserId(), email, createdAt), {
          'accounts.email': `account ${email} already exists`,
        })!;
        const team = insertTeam.run(teamNameFor(email), row.id, createdAt);
        insertOwnerMembership.run(row.id, Number(team.lastInsertRowid), createdAt);
        deps.createIntegration({
          accountId: row.id,
          name: 'reflection',
          type: 'reflection',
          attachments: ['auto:all'],
        });
        for (const key of keys) deps.addKey({ ...key, accountId: row.id });
        return toAccount(row);
      },
    ),

    findAccountByEmail(email) {
      const row = byEmail.get(email);
      return row === undefined ? undefined : toAccount(row);
    },

    // Hot path (token authentication): the raw row comes from the read cache while the database
    // is unchanged; toAccount makes a fresh object on every call.
    getAccount(accountId) {
      const row = ctx.reads.get(`a:${accountId}`, () => byId.get(accountId));
      return row === undefined ? undefined : toAccount(row);
    },

    listAccounts() {
      return all.all().map(toAccount);
    },

    removeAccount: writeTransaction(ctx, (accountId: number) => {
      const row = byId.get(accountId);
      if (row === undefined) throw new StoreConflictError('not_found', 'account no longer exists');
      if (othersInOwnTeam.get({ accountId })!.n > 0) {
        throw new StoreConflictError(
          'team_has_members',
          `${row.email} owns a team with other members`,
        );
      }
      const vms = deps.listVmsOwnedBy(accountId);
      dropSharesWith.run(row.email);
      remove.run(accountId);
      return { account: toAccount(row), vms };
    }),

    setRegion: writeTransaction(ctx, (accountId: number, region: string) => {
      if (updateRegion.run(region, accountId).changes === 0) {
        throw new StoreConflictError('not_found', 'account no longer exists');
      }
    }),
  };
}
