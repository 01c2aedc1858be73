import type { Database } from 'better-sqlite3';
import { ExectlError } from '../../errors.js';
import { MIGRATIONS, type Migration } from './migrations.js';

/**
 * Brings the database up to the newest schema version: applies, in order, each migration whose
 * version is above `PRAGMA user_version`, every one in its own transaction together with the
 * version bump, so a failed step leaves the database exactly at the previous version. An
 * up-to-date database is left untouched. Returns the resulting version.
 */
export function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): number {
  const latest = migrations.at(-1)?.version ?? 0;
  const current = userVersion(db);
  if (current > latest) {
    throw new ExectlError(
      'cannot_start',
      `the database has schema version ${current}, newer than this exectl knows (${latest})`,
      { hint: 'upgrade exectl, or use another --data folder' },
    );
  }
  for (const migration of migrations) {
    // IMMEDIATE takes the write lock before re-reading the version, so two processes opening
    // the same new database cannot both apply a step.
    db.transaction(() => {
      if (userVersion(db) >= migration.version) return;
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
  return userVersion(db);
}

function userVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}
