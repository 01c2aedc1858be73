import Database from 'better-sqlite3';
import { ExectlError } from '../../errors.js';

/**
 * What SQLite's refusal to open or read the SQLite file at `path` means for the user: one line
 * naming the file (as `what`: the `database`, or the data folder's `lock file`) and the cause
 * (`cannot_start`), never an internal error. Anything else is returned unchanged.
 */
export function openError(path: string, error: unknown, what = 'database'): unknown {
  if (!(error instanceof Database.SqliteError)) return error;
  const cause = `${error.code}: ${error.message}`;
  const hint = 'check the permissions of the file and its folder, or use another --data folder';
  switch (error.code) {
    case 'SQLITE_NOTADB':
    case 'SQLITE_CORRUPT':
      return new ExectlError('cannot_start', `${what} ${path} is corrupt (${cause})`, {
        hint: 'move it away (with its -wal and -shm files) to start afresh, or restore a copy',
        cause: error,
      });
    case 'SQLITE_READONLY_DIRECTORY':
      // SQLite's own words ("attempt to write a readonly database") blame the file, which is
      // writable: its journal cannot be created beside it.
      return new ExectlError(
        'cannot_start',
        `${what} ${path} cannot be used: its folder cannot be written to (${error.code})`,
        { hint, cause: error },
      );
    case 'SQLITE_READONLY':
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_PERM':
    case 'SQLITE_IOERR':
      return new ExectlError('cannot_start', `${what} ${path} cannot be used (${cause})`, {
        hint,
        cause: error,
      });
    default:
      return error;
  }
}
