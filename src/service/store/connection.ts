import Database from 'better-sqlite3';
import { openPrivateFile, tightenIfPresent } from './private-files.js';

/**
 * Opens (creating if needed) the SQLite file with the settings the store's guarantees rest on:
 * - WAL: readers never block the writer, and a commit is one append to the log;
 * - `synchronous = FULL`: a commit returns only after the log is synced, so anything the
 *   store acknowledged survives `kill -9` and power loss;
 * - `foreign_keys = ON`: cascades and references are enforced (SQLite's default is off);
 * - a busy timeout, so another process writing to the file (the `sqlite3` shell, say) makes a
 *   write wait for its lock instead of failing at once.
 *
 * The file and its journal files are readable by their user only, whatever the umask: the
 * database is made (or tightened) 0600 before SQLite opens it, and SQLite gives the files it
 * creates beside it the database's own mode.
 */
export function openDatabase(path: string, busyTimeoutMs: number): Database.Database {
  openPrivateFile(path, 'database');
  for (const journal of ['-wal', '-shm']) tightenIfPresent(path + journal, 'database journal');
  const db = new Database(path, { timeout: busyTimeoutMs });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
