import { createHash } from 'node:crypto';
import type { StoreContext } from './context.js';
import { writeTransaction } from './context.js';
import { StoreConflictError } from './conflicts.js';

/**
 * A svc1 handle and the svc0 token it stands for. Both `handle` and `svc0` are bearer
 * tokens: never log them.
 */
export interface Svc1Record {
  /** `svc1.` + 26 base32 characters. */
  handle: string;
  svc0: string;
  /** The signing key; the handle disappears with it. */
  fingerprint: string;
  namespace: string;
  /** Hex SHA-256 of the payload bytes. */
  payloadHash: string;
  /** The svc0's `exp` (unix seconds), or null when it never expires. */
  exp: number | null;
  createdAt: string;
}

export interface Svc1Request {
  fingerprint: string;
  namespace: string;
  /** The permissions JSON bytes exactly as signed. */
  payload: Uint8Array;
  svc0: string;
  exp: number | null;
  /** Makes a fresh handle; called only when none exists yet for this key+namespace+payload. */
  newHandle: () => string;
}

export interface Svc1Store {
  /**
   * The svc1 for (fingerprint, namespace, sha256(payload)), created on first request. It does
   * not depend on the signature — ECDSA signatures are randomized and malleable — so any
   * signing of the same payload by the same key for the same namespace gives the same handle
   * (which keeps the svc0 stored first). Conflict: `ssh key SHA256:… not found`.
   */
  findOrCreateSvc1(request: Svc1Request): Svc1Record;
  /** Hot path: one primary-key lookup. */
  findSvc1(handle: string): Svc1Record | undefined;
}

interface Svc1Row {
  handle: string;
  svc0: string;
  fingerprint: string;
  namespace: string;
  payload_hash: string;
  exp: number | null;
  created_at: string;
}

const SVC1_COLUMNS = 'handle, svc0, fingerprint, namespace, payload_hash, exp, created_at';

/** The hot-path lookup, exported so a test can check its query plan. */
export const FIND_SVC1_SQL = `SELECT ${SVC1_COLUMNS} FROM svc1_handles WHERE handle = ?`;

const toRecord = (row: Svc1Row): Svc1Record => ({
  handle: row.handle,
  svc0: row.svc0,
  fingerprint: row.fingerprint,
  namespace: row.namespace,
  payloadHash: row.payload_hash,
  exp: row.exp,
  createdAt: row.created_at,
});

export function svc1Store(ctx: StoreContext): Svc1Store {
  const { db } = ctx;
  const byHandle = db.prepare<[string], Svc1Row>(FIND_SVC1_SQL);
  const byIdentity = db.prepare<[string, string, string], Svc1Row>(
    `SELECT ${SVC1_COLUMNS} FROM svc1_handles
     WHERE fingerprint = ? AND namespace = ? AND payload_hash = ?`,
  );
  const keyExists = db.prepare<[string], { found: 1 }>(
    'SELECT 1 AS found FROM ssh_keys WHERE fingerprint = ?',
  );
  const insert = db.prepare<[string, string, string, string, string, number | null, string]>(
    `INSERT INTO svc1_handles (${SVC1_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );

  return {
    findOrCreateSvc1: writeTransaction(ctx, (request: Svc1Request) => {
      const payloadHash = createHash('sha256').update(request.payload).digest('hex');
      const existing = byIdentity.get(request.fingerprint, request.namespace, payloadHash);
      if (existing !== undefined) return toRecord(existing);
      if (keyExists.get(request.fingerprint) === undefined) {
        throw new StoreConflictError('not_found', `ssh key ${request.fingerprint} not found`);
      }
      const record: Svc1Record = {
        handle: request.newHandle(),
        svc0: request.svc0,
        fingerprint: request.fingerprint,
        namespace: request.namespace,
        payloadHash,
        exp: request.exp,
        createdAt: ctx.timestamp(),
      };
      insert.run(
        record.handle,
        record.svc0,
        record.fingerprint,
        record.namespace,
        record.payloadHash,
        record.exp,
        record.createdAt,
      );
      return record;
    }),

    findSvc1(handle) {
      const row = byHandle.get(handle);
      return row === undefined ? undefined : toRecord(row);
    },
  };
}
