import { accessSync, closeSync, constants, fchmodSync, fstatSync, openSync } from 'node:fs';
import { ExectlError } from '../../errors.js';
import { fsCause } from '../../fs-cause.js';

/** What `openPrivateFile` does with a file open to other users: readable by its user only. */
const PRIVATE = 0o600;

/**
 * Makes sure the regular file `path` exists, can be read and written, and is readable by its
 * user only (mode 0600 whatever the umask; a file of exectl's open to others is tightened).
 * `what` names it in the one-line error thrown when it cannot be used, e.g. `database`.
 */
export function openPrivateFile(path: string, what: string): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, PRIVATE);
  } catch (err) {
    throw unusable(path, what, err);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw new ExectlError('cannot_start', `${what} ${path} is not a regular file`, {
        hint: 'move it away, or use another --data folder',
      });
    }
    if ((stat.mode & 0o077) !== 0 && stat.uid === process.getuid?.()) fchmodSync(fd, PRIVATE);
  } finally {
    closeSync(fd);
  }
}

/** Tightens `path` to 0600 when it exists (a journal file SQLite made before). */
export function tightenIfPresent(path: string, what: string): void {
  try {
    accessSync(path);
  } catch {
    return;
  }
  openPrivateFile(path, what);
}

function unusable(path: string, what: string, err: unknown): ExectlError {
  const code = (err as NodeJS.ErrnoException).code;
  const hint = 'check the permissions of the file and its folder, or use another --data folder';
  if (code === 'EROFS') {
    return new ExectlError('cannot_start', `${what} ${path} is read-only: ${fsCause(err)}`, {
      hint,
    });
  }
  if (code === 'EACCES' || code === 'EPERM') {
    // It exists but cannot be opened for writing: say whether it can at least be read.
    const readable = canAccess(path, constants.R_OK);
    if (readable !== undefined) {
      const how = readable ? 'is read-only' : 'cannot be read';
      return new ExectlError('cannot_start', `${what} ${path} ${how}: ${fsCause(err)}`, {
        hint,
      });
    }
  }
  return new ExectlError('cannot_start', `cannot create ${what} ${path}: ${fsCause(err)}`, {
    hint,
  });
}

/** Whether `path` allows `mode`; `undefined` when it does not exist. */
function canAccess(path: string, mode: number): boolean | undefined {
  try {
    accessSync(path, mode);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : false;
  }
}
