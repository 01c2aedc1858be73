import { StoreConflictError, withUniqueMessages } from './conflicts.js';
import { toTimestamp, writeTransaction, type StoreContext } from './context.js';
import type { KeyUseBuffer } from './key-usage.js';
import { reflectionSecretRotation } from './reflection-secrets.js';

/** A registered SSH public key. A key belongs to exactly one account. */
export interface SshKeyRecord {
  /** `SHA256:<base64 without padding>`, globally unique. */
  fingerprint: string;
  accountId: number;
  /** Unique within the account. */
  name: string;
  /** OpenSSH text, `type base64 comment`. */
  publicKey: string;
  /** e.g. `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`. */
  keyType: string;
  addedAt: string;
  /** May lag the real last use by the key-use flush interval (see `recordKeyUse`). */
  lastUsedAt: string | null;
  /**
   * The tag this key is scoped to (`generate-api-key --tag`), or null for an unscoped key. Set
   * once when the key is registered: no store method changes it.
   */
  tag: string | null;
}

/**
 * What `addKey` needs; the fingerprint is computed by the caller (token/keys.ts). `tag` left
 * out is null: only `generate-api-key --tag` and an import make scoped keys.
 */
export type NewSshKey = Omit<SshKeyRecord, 'addedAt' | 'lastUsedAt' | 'tag'> & {
  tag?: string | null;
};

export interface KeyStore {
  /** Registers a key. Conflicts: `ssh key SHA256:… is already registered`, `ssh key "n" already exists`. */
  addKey(key: NewSshKey): SshKeyRecord;
  /**
   * The key with this fingerprint, or undefined. Hot path: served from the read cache while the
   * database is unchanged, else one indexed lookup; no write.
   */
  findKeyByFingerprint(fingerprint: string): SshKeyRecord | undefined;
  /** The account's keys, oldest first (served from the read cache while nothing changed). */
  listKeys(accountId: number): SshKeyRecord[];
  /**
   * Removes the key and every svc1 handle made from it, and gives every VM the key reached a new
   * reflection secret; returns the removed key.
   */
  removeKey(fingerprint: string): SshKeyRecord;
  /** Renames the key within its account; returns the renamed key. */
  renameKey(fingerprint: string, newName: string): SshKeyRecord;
  /**
   * Notes that the key signed a request at `at` (default: now). Buffered in memory and written
   * at most once per flush interval and on close — not an acknowledged change.
   */
  recordKeyUse(fingerprint: string, at?: Date): void;
  /** Writes the buffered key-use times now. */
  flushKeyUse(): void;
}

interface KeyRow {
  fingerprint: string;
  account_id: number;
  name: string;
  public_key: string;
  key_type: string;
  added_at: string;
  last_used_at: string | null;
  tag: string | null;
}

const KEY_COLUMNS =
  'fingerprint, account_id, name, public_key, key_type, added_at, last_used_at, tag';

/** The hot-path lookup, exported so a test can check its query plan. */
export const FIND_KEY_BY_FINGERPRINT_SQL = `SELECT ${KEY_COLUMNS} FROM ssh_keys WHERE fingerprint = ?`;

export function keyStore(ctx: StoreContext, usage: KeyUseBuffer): KeyStore {
  const { db } = ctx;
  const insert = db.prepare<[string, number, string, string, string, string, string | null]>(
    `INSERT INTO ssh_keys (fingerprint, account_id, name, public_key, key_type, added_at, tag)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const byFingerprint = db.prepare<[string], KeyRow>(FIND_KEY_BY_FINGERPRINT_SQL);
  const byAccount = db.prepare<[number], KeyRow>(
    `SELECT ${KEY_COLUMNS} FROM ssh_keys WHERE account_id = ? ORDER BY added_at, id`,
  );
  const remove = db.prepare<[string]>('DELETE FROM ssh_keys WHERE fingerprint = ?');
  const rotate = reflectionSecretRotation(ctx);
  const rename = db.prepare<[string, string]>('UPDATE ssh_keys SET name = ? WHERE fingerprint = ?');

  const toRecord = (row: KeyRow): SshKeyRecord => {
    const buffered = usage.pending(row.fingerprint);
    const lastUsedAt =
      buffered !== undefined && (row.last_used_at === null || row.last_used_at < buffered)
        ? buffered
        : row.last_used_at;
    return {
      fingerprint: row.fingerprint,
      accountId: row.account_id,
      name: row.name,
      publicKey: row.public_key,
      keyType: row.key_type,
      addedAt: row.added_at,
      lastUsedAt,
      tag: row.tag,
    };
  };

  const requireKey = (fingerprint: string): SshKeyRecord => {
    const row = byFingerprint.get(fingerprint);
    if (row === undefined) {
      throw new StoreConflictError('not_found', `ssh key ${fingerprint} not found`);
    }
    return toRecord(row);
  };

  return {
    // A single INSERT, but still through writeTransaction: that is what empties the read cache.
    addKey: writeTransaction(ctx, (key: NewSshKey): SshKeyRecord => {
      const addedAt = ctx.timestamp();
      const tag = key.tag ?? null;
      withUniqueMessages(
        () =>
          insert.run(
            key.fingerprint,
            key.accountId,
            key.name,
            key.publicKey,
            key.keyType,
            addedAt,
            tag,
          ),
        {
          'ssh_keys.fingerprint': `ssh key ${key.fingerprint} is already registered`,
          'ssh_keys.account_id, ssh_keys.name': `ssh key "${key.name}" already exists`,
        },
      );
      return { ...key, addedAt, lastUsedAt: null, tag };
    }),

    // The cache holds raw rows; toRecord runs on every call, so each caller gets fresh objects
    // (free to mutate) carrying the newest buffered key-use time.
    findKeyByFingerprint(fingerprint) {
      const row = ctx.reads.get(`k:${fingerprint}`, () => byFingerprint.get(fingerprint));
      return row === undefined ? undefined : toRecord(row);
    },

    listKeys(accountId) {
      return ctx.reads.get(`ks:${accountId}`, () => byAccount.all(accountId)).map(toRecord);
    },

    removeKey: writeTransaction(ctx, (fingerprint: string) => {
      const key = requireKey(fingerprint);
      remove.run(fingerprint);
      rotate.ofVmsReachedBy(key.accountId, key.tag);
      return key;
    }),

    renameKey: writeTransaction(ctx, (fingerprint: string, newName: string) => {
      const key = requireKey(fingerprint);
      withUniqueMessages(() => rename.run(newName, fingerprint), {
        'ssh_keys.account_id, ssh_keys.name': `ssh key "${newName}" already exists`,
      });
      return { ...key, name: newName };
    }),

    recordKeyUse(fingerprint, at) {
      usage.record(fingerprint, at === undefined ? ctx.timestamp() : toTimestamp(at));
    },

    flushKeyUse() {
      usage.flush();
    },
  };
}
