import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import type { StoreOptions } from '../../../../src/service/store/index.js';
import { fakeKey, openFixture, type StoreFixture } from '../../../helpers/store.js';

const fixtures: StoreFixture[] = [];
after(async () => {
  for (const f of fixtures) await f.cleanup();
});

async function withKey(options: Omit<StoreOptions, 'now'> = { keyUseFlushMs: 3_600_000 }) {
  const f = await openFixture(options);
  fixtures.push(f);
  const account = f.store.createAccount('ada@x.io');
  const key = f.store.addKey(fakeKey(account.id, 'laptop'));
  const onDisk = () =>
    (
      f
        .peek()
        .prepare('SELECT last_used_at FROM ssh_keys WHERE fingerprint = ?')
        .get(key.fingerprint) as {
        last_used_at: string | null;
      }
    ).last_used_at;
  return { f, key, onDisk };
}

/** Waits (bounded) until `check` holds; this is a liveness wait, not a timing assertion. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await sleep(10);
  }
  assert.fail(`never happened: ${what}`);
}

describe('recordKeyUse', () => {
  test('writes nothing per call, yet the store reads the newest time', async () => {
    const { f, key, onDisk } = await withKey();
    const wal = `${f.dbPath}-wal`;
    const walBytes = statSync(wal).size;
    const observer = f.peek();
    const dataVersion = () => observer.pragma('data_version', { simple: true });
    const versionBefore = dataVersion();
    for (let i = 0; i < 1000; i++) {
      f.clock.advance(1);
      f.store.recordKeyUse(key.fingerprint);
    }
    assert.equal(statSync(wal).size, walBytes);
    assert.equal(onDisk(), null);
    assert.equal(dataVersion(), versionBefore);
    assert.equal(f.store.findKeyByFingerprint(key.fingerprint)?.lastUsedAt, '2025-03-01T12:16:40Z');
    assert.equal(f.store.listKeys(key.accountId)[0]?.lastUsedAt, '2025-03-01T12:16:40Z');
  });

  test('is written by flushKeyUse and by close', async () => {
    const { f, key, onDisk } = await withKey();
    f.store.recordKeyUse(key.fingerprint, new Date('2025-04-01T00:00:00.750Z'));
    f.store.flushKeyUse();
    assert.equal(onDisk(), '2025-04-01T00:00:00Z');
    f.store.recordKeyUse(key.fingerprint, new Date('2025-05-01T00:00:00Z'));
    f.store.close();
    assert.equal(onDisk(), '2025-05-01T00:00:00Z');
    f.reopen();
    assert.equal(f.store.findKeyByFingerprint(key.fingerprint)?.lastUsedAt, '2025-05-01T00:00:00Z');
  });

  test('never moves the time backwards', async () => {
    const { f, key, onDisk } = await withKey();
    f.store.recordKeyUse(key.fingerprint, new Date('2025-06-01T00:00:00Z'));
    f.store.recordKeyUse(key.fingerprint, new Date('2025-01-01T00:00:00Z'));
    f.store.flushKeyUse();
    f.store.recordKeyUse(key.fingerprint, new Date('2025-02-01T00:00:00Z'));
    assert.equal(f.store.findKeyByFingerprint(key.fingerprint)?.lastUsedAt, '2025-06-01T00:00:00Z');
    f.store.flushKeyUse();
    assert.equal(onDisk(), '2025-06-01T00:00:00Z');
  });

  test('is flushed by the timer without any call', async () => {
    const { f, key, onDisk } = await withKey({ keyUseFlushMs: 20 });
    f.store.recordKeyUse(key.fingerprint);
    await eventually(() => onDisk() === '2025-03-01T12:00:00Z', 'timer flush');
  });

  test('keeps the times and retries when a timer flush finds the database locked', async () => {
    const { f, key, onDisk } = await withKey({ keyUseFlushMs: 20, busyTimeoutMs: 1 });
    const other = new Database(f.dbPath, { timeout: 0 });
    other.exec('BEGIN IMMEDIATE');
    f.store.recordKeyUse(key.fingerprint);
    // Several timer flushes fail with SQLITE_BUSY meanwhile; none may crash the process.
    await sleep(100);
    assert.equal(onDisk(), null);
    other.exec('COMMIT');
    other.close();
    await eventually(() => onDisk() === '2025-03-01T12:00:00Z', 'flush after the lock is gone');
  });
});
