import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { createTempDir, type TempDir } from '../../../helpers/tmp.js';
import { openDatabase } from '../../../../src/service/store/connection.js';
import { migrate } from '../../../../src/service/store/migrate.js';
import { MIGRATIONS, type Migration } from '../../../../src/service/store/migrations.js';
import { openStore } from '../../../../src/service/store/index.js';

let dir: TempDir;
before(async () => {
  dir = await createTempDir('migrate');
});
after(() => dir.remove());

let fileCounter = 0;
const freshPath = () => dir.join(`db-${++fileCounter}.sqlite`);

function schemaOf(path: string): { version: number; objects: unknown[] } {
  const db = new Database(path, { readonly: true });
  try {
    return {
      version: db.pragma('user_version', { simple: true }) as number,
      objects: db.prepare('SELECT type, name, sql FROM sqlite_schema ORDER BY name').all(),
    };
  } finally {
    db.close();
  }
}

/** The newest schema version. */
const LATEST = MIGRATIONS.at(-1)!.version;

describe('the migration list', () => {
  test('is numbered 1, 2, 3… with no gap (migrate applies them in list order, by version)', () => {
    assert.deepEqual(
      MIGRATIONS.map((m) => m.version),
      MIGRATIONS.map((_, i) => i + 1),
    );
  });
});

describe('openStore', () => {
  test('creates the full schema on a new file, and re-opening changes nothing', () => {
    const path = freshPath();
    openStore(path).close();
    const first = schemaOf(path);
    assert.equal(first.version, MIGRATIONS.at(-1)!.version);
    assert.ok(first.objects.length > 0);
    openStore(path).close();
    openStore(path).close();
    assert.deepEqual(schemaOf(path), first);
  });

  test('refuses a database from a newer exectl, and leaves it alone', () => {
    const path = freshPath();
    openStore(path).close();
    const db = new Database(path);
    db.pragma(`user_version = ${LATEST + 1}`);
    db.close();
    assert.throws(() => openStore(path), {
      name: 'ExectlError',
      code: 'cannot_start',
      message: `the database has schema version ${LATEST + 1}, newer than this exectl knows (${LATEST})`,
      hint: 'upgrade exectl, or use another --data folder',
    });
    assert.equal(schemaOf(path).version, LATEST + 1);
  });
});

describe('step 4: the tag of ssh keys', () => {
  test('a database made before it upgrades: its keys are unscoped, and scoped keys can be added', () => {
    const path = freshPath();
    const db = openDatabase(path, 1000);
    try {
      assert.equal(migrate(db, MIGRATIONS.slice(0, 3)), 3);
      db.prepare(
        "INSERT INTO accounts (id, user_id, email, created_at) VALUES (1, 'u_1', 'ada@example.com', '2025-03-01T12:00:00Z')",
      ).run();
      db.prepare(
        `INSERT INTO ssh_keys (fingerprint, account_id, name, public_key, key_type, added_at)
         VALUES ('SHA256:old', 1, 'laptop', 'ssh-ed25519 AAAA old', 'ssh-ed25519', '2025-03-01T12:00:00Z')`,
      ).run();
    } finally {
      db.close();
    }
    const store = openStore(path);
    try {
      assert.equal(store.findKeyByFingerprint('SHA256:old')?.tag, null);
      const added = store.addKey({
        accountId: 1,
        fingerprint: 'SHA256:new',
        name: 'ci',
        publicKey: 'ssh-ed25519 AAAA new',
        keyType: 'ssh-ed25519',
        tag: 'ci',
      });
      assert.equal(added.tag, 'ci');
      assert.deepEqual(
        store.listKeys(1).map((k) => [k.name, k.tag]),
        [
          ['laptop', null],
          ['ci', 'ci'],
        ],
      );
    } finally {
      store.close();
    }
    assert.equal(schemaOf(path).version, LATEST);
  });
});

describe('migrate', () => {
  const steps: Migration[] = [
    { version: 1, description: 'one', sql: 'CREATE TABLE one (x INTEGER) STRICT;' },
    { version: 2, description: 'two', sql: 'CREATE TABLE two (x INTEGER) STRICT;' },
  ];

  test('applies only the steps above the current version', () => {
    const path = freshPath();
    const db = openDatabase(path, 1000);
    try {
      assert.equal(migrate(db, steps.slice(0, 1)), 1);
      assert.equal(migrate(db, steps), 2);
      // Step 1 would fail if run twice (the table exists): reaching 2 again proves it is skipped.
      assert.equal(migrate(db, steps), 2);
    } finally {
      db.close();
    }
    assert.deepEqual(
      schemaOf(path).objects.map((o) => (o as { name: string }).name),
      ['one', 'two'],
    );
  });

  test('rolls a failing step back entirely, keeping the steps before it', () => {
    const path = freshPath();
    const broken: Migration = {
      version: 3,
      description: 'half done',
      sql: 'CREATE TABLE three (x INTEGER) STRICT; INSERT INTO no_such_table VALUES (1);',
    };
    const db = openDatabase(path, 1000);
    try {
      assert.throws(() => migrate(db, [...steps, broken]), /no such table: no_such_table/);
    } finally {
      db.close();
    }
    const schema = schemaOf(path);
    assert.equal(schema.version, 2);
    assert.deepEqual(
      schema.objects.map((o) => (o as { name: string }).name),
      ['one', 'two'],
    );
  });
});

describe('openDatabase', () => {
  test('sets WAL, synchronous FULL, foreign keys and the busy timeout', () => {
    const db = openDatabase(freshPath(), 1234);
    try {
      assert.deepEqual(
        {
          journal: db.pragma('journal_mode', { simple: true }),
          synchronous: db.pragma('synchronous', { simple: true }),
          foreignKeys: db.pragma('foreign_keys', { simple: true }),
          busyTimeout: db.pragma('busy_timeout', { simple: true }),
        },
        { journal: 'wal', synchronous: 2, foreignKeys: 1, busyTimeout: 1234 },
      );
    } finally {
      db.close();
    }
  });
});
