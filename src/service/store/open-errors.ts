import Database from 'better-sqlite3';
import { ExectlError } from '../../errors.js';

/**
 * What SQLite's refusal to open or read the database at `path` means for the user: one line
 * naming the file and the cause (`cannot_start`), never an internal error. Anything else is
 * returned unchanged.
 */
export function openError(path: string, error: unknown): unknown {
  if (!(error instanceof Database.SqliteError)) return error;
  const cause = `${error.code}: ${error.message}`;
  switch (error.code) {
    case 'SQLITE_NOTADB':
    case 'SQLITE_CORRUPT':
      return new ExectlError('cannot_start', `database ${path} is corrupt (${cause})`, {
        hint: 'move it away (with its -wal and -shm files) to start afresh, or restore a copy',
        cause: error,
      });
    case 'SQLITE_READONLY':
    case 'SQLITE_READONLY_DIRECTORY':
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_PERM':
    case 'SQLITE_IOERR':
      return new ExectlError('cannot_start', `database ${path} cannot be used (${cause})`, {
        hint: 'check the permissions of the file and its folder, or use another --data folder',
        cause: error,
      });
    default:
      return error;
  }
}
