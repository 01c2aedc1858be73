// Per-account defaults (`defaults read|write|delete`, SPEC §3): small values an account keeps
// for later commands, such as the setup script `new` runs when given none.
import { writeTransaction, type StoreContext } from './context.js';

/** One stored default. */
export interface DefaultRecord {
  domain: string;
  key: string;
  value: string;
  writtenAt: string;
}

export interface DefaultsStore {
  /** The account's defaults, by domain then key. */
  listDefaults(accountId: number): DefaultRecord[];
  /** One default, or undefined when the account has not written it. */
  getDefault(accountId: number, domain: string, key: string): DefaultRecord | undefined;
  /** Writes (or replaces) one default. */
  writeDefault(accountId: number, domain: string, key: string, value: string): DefaultRecord;
  /** Deletes one default; false when there was none. */
  deleteDefault(accountId: number, domain: string, key: string): boolean;
}

interface DefaultRow {
  domain: string;
  key: string;
  value: string;
  written_at: string;
}

const toRecord = (row: DefaultRow): DefaultRecord => ({
  domain: row.domain,
  key: row.key,
  value: row.value,
  writtenAt: row.written_at,
});

/** The defaults table's reads and writes. */
export function defaultsStore(ctx: StoreContext): DefaultsStore {
  const { db } = ctx;
  const all = db.prepare<[number], DefaultRow>(
    'SELECT domain, key, value, written_at FROM account_defaults WHERE account_id = ? ORDER BY domain, key',
  );
  const one = db.prepare<[number, string, string], DefaultRow>(
    'SELECT domain, key, value, written_at FROM account_defaults WHERE account_id = ? AND domain = ? AND key = ?',
  );
  const upsert = db.prepare<[number, string, string, string, string]>(
    `INSERT INTO account_defaults (account_id, domain, key, value, written_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (account_id, domain, key) DO UPDATE SET value = excluded.value, written_at = excluded.written_at`,
  );
  const remove = db.prepare<[number, string, string]>(
    'DELETE FROM account_defaults WHERE account_id = ? AND domain = ? AND key = ?',
  );
  return {
    listDefaults: (accountId) => all.all(accountId).map(toRecord),
    getDefault(accountId, domain, key) {
      const row = one.get(accountId, domain, key);
      return row === undefined ? undefined : toRecord(row);
    },
    writeDefault: writeTransaction(
      ctx,
      (accountId: number, domain: string, key: string, value: string) => {
        const writtenAt = ctx.timestamp();
        upsert.run(accountId, domain, key, value, writtenAt);
        return { domain, key, value, writtenAt };
      },
    ),
    deleteDefault: writeTransaction(
      ctx,
      (accountId: number, domain: string, key: string) =>
        remove.run(accountId, domain, key).changes > 0,
    ),
  };
}
