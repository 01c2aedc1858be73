// The request hot path must never scan a table. SQLite's own planner says how it runs each
// lookup (EXPLAIN QUERY PLAN), on a database holding 10,000 keys and 10,000 VMs with fresh
// statistics (ANALYZE), for exactly the SQL the store prepares.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { FIND_KEY_BY_FINGERPRINT_SQL } from '../../../../src/service/store/keys.js';
import { FIND_SVC1_SQL } from '../../../../src/service/store/svc1.js';
import { INTEGRATIONS_FOR_VM_SQL } from '../../../../src/service/store/integrations.js';
import {
  GET_VM_BY_NAME_SQL,
  GET_VM_BY_REFLECTION_SECRET_SQL,
  LIST_VMS_VISIBLE_TO_SQL,
} from '../../../../src/service/store/vm-records.js';
import { openFixture, type StoreFixture } from '../../../helpers/store.js';

const ROWS = 10_000;
let f: StoreFixture;
let db: Database.Database;

before(async () => {
  f = await openFixture();
  for (let a = 0; a < 100; a++) f.store.createAccount(`user${a}@x.io`);
  db = new Database(f.dbPath);
  // Bulk rows straight into the file: one transaction instead of 10,000 durable commits.
  db.transaction(() => {
    const key = db.prepare(
      `INSERT INTO ssh_keys (fingerprint, account_id, name, public_key, key_type, added_at)
       VALUES (?, ?, ?, 'ssh-ed25519 AAAA', 'ssh-ed25519', '2025-01-01T00:00:00Z')`,
    );
    const vm = db.prepare(
      `INSERT INTO vms (name, account_id, emoji, status, reflection_secret, created_at)
       VALUES (?, ?, 'x', 'running', ?, '2025-01-01T00:00:00Z')`,
    );
    const tag = db.prepare('INSERT INTO vm_tags (vm_id, tag) VALUES (?, ?)');
    const share = db.prepare(
      `INSERT INTO vm_shares (vm_id, email, added_at) VALUES (?, ?, '2025-01-01T00:00:00Z')`,
    );
    const svc1 = db.prepare(
      `INSERT INTO svc1_handles (handle, fingerprint, namespace, payload_hash, svc0, created_at)
       VALUES (?, ?, 'v0@localhost', ?, 'svc0.x.y', '2025-01-01T00:00:00Z')`,
    );
    for (let i = 0; i < ROWS; i++) {
      const accountId = (i % 100) + 1;
      key.run(`SHA256:key${i}`, accountId, `key${i}`);
      const vmId = Number(vm.run(`vm-${i}`, accountId, `secret-${i}`).lastInsertRowid);
      tag.run(vmId, `tag${i % 50}`);
      share.run(vmId, `user${(i + 1) % 100}@x.io`);
      svc1.run(`svc1.${String(i).padStart(26, 'A')}`, `SHA256:key${i}`, `hash${i}`);
    }
  })();
  db.exec('ANALYZE');
});
after(async () => {
  db?.close();
  await f.cleanup();
});

function planOf(sql: string, params: unknown): string[] {
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map(
    (row) => row.detail,
  );
}

/** No step of the plan scans a table, and the main table is searched by `column`. */
function assertIndexed(sql: string, params: unknown, table: string, column: string): void {
  const plan = planOf(sql, params);
  assert.deepEqual(
    plan.filter((step) => /^SCAN\b/.test(step)),
    [],
    `plan scans:\n${plan.join('\n')}`,
  );
  const search = new RegExp(
    `^SEARCH ${table} USING (COVERING INDEX \\S+|INDEX \\S+|PRIMARY KEY|INTEGER PRIMARY KEY) \\(${column}=\\?\\)$`,
  );
  assert.ok(
    plan.some((step) => search.test(step)),
    `no indexed search of ${table} by ${column}:\n${plan.join('\n')}`,
  );
}

test('findKeyByFingerprint searches ssh_keys by its fingerprint index', () => {
  assertIndexed(FIND_KEY_BY_FINGERPRINT_SQL, ['SHA256:key77'], 'ssh_keys', 'fingerprint');
  assert.equal(f.store.findKeyByFingerprint('SHA256:key77')?.name, 'key77');
});

test('getVmByName searches vms by name (and its tags by primary key)', () => {
  assertIndexed(GET_VM_BY_NAME_SQL, ['vm-4242'], 'v', 'name');
  assertIndexed(GET_VM_BY_NAME_SQL, ['vm-4242'], 't', 'vm_id');
  assert.deepEqual(f.store.getVmByName('vm-4242')?.tags, ['tag42']);
});

test('getVmByReflectionSecret searches vms by reflection_secret', () => {
  assertIndexed(GET_VM_BY_REFLECTION_SECRET_SQL, ['secret-9999'], 'v', 'reflection_secret');
  assert.equal(f.store.getVmByReflectionSecret('secret-9999')?.name, 'vm-9999');
});

test('findSvc1 searches svc1_handles by its primary key', () => {
  const handle = `svc1.${'123'.padStart(26, 'A')}`;
  assertIndexed(FIND_SVC1_SQL, [handle], 'svc1_handles', 'handle');
  assert.equal(f.store.findSvc1(handle)?.fingerprint, 'SHA256:key123');
});

test('integrationsForVm searches by account, attachment and VM tags', () => {
  const params = { accountId: 1, vmName: 'vm-0', vmId: 1 };
  assertIndexed(INTEGRATIONS_FOR_VM_SQL, params, 'i', 'account_id');
  assertIndexed(INTEGRATIONS_FOR_VM_SQL, params, 'a', 'integration_id');
  assertIndexed(INTEGRATIONS_FOR_VM_SQL, params, 't', 'vm_id');
});

test('listVmsVisibleTo searches own VMs by account and shares by email', () => {
  const params = { accountId: 7, pattern: null };
  assertIndexed(LIST_VMS_VISIBLE_TO_SQL, params, 'vms', 'account_id');
  assertIndexed(LIST_VMS_VISIBLE_TO_SQL, params, 'vm_shares', 'email');
  // user6 owns vm-6, vm-106, ... (100 VMs); VMs i with (i + 1) % 100 = 6 are shared with it.
  const visible = f.store.listVmsVisibleTo(7);
  assert.equal(visible.length, 200);
});
