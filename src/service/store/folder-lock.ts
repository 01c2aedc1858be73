import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ExectlError } from '../../errors.js';
import { openError } from './open-errors.js';
import { openPrivateFile } from './private-files.js';

/** The file whose lock says "a process works on this data folder". */
const LOCK_FILE = 'exectl.lock';
/** The pid of the process holding the lock, for the message of the ones refused. */
const PID_FILE = 'exectl.pid';

/** The data folder's lock, held until `release`. */
export interface FolderLock {
  /** Removes the pid file and lets the next process in. Calling it again does nothing. */
  release(): void;
}

/**
 * Takes the data folder's exclusive lock, or throws `cannot_start` with `data folder <dir> is in
 * use by pid <n>` and `hint` when another process (or another server of this one) holds it.
 *
 * The lock is a kernel record lock (`fcntl`), taken through SQLite on a file of its own with an
 * exclusive transaction that stays open: the kernel drops it when its process ends, however it
 * ends (`kill -9` included), so a dead server never blocks the next one and pid reuse cannot
 * fool the check — the pid file is only read to name the holder, never to decide. SQLite also
 * makes two holders in one process exclude each other, which a bare `fcntl` lock would not.
 */
export function lockDataFolder(dir: string, hint: string): FolderLock {
  const lockPath = join(dir, LOCK_FILE);
  const pidPath = join(dir, PID_FILE);
  openPrivateFile(lockPath, 'lock file');
  const deadline = Date.now() + 2000;
  for (;;) {
    const db = new Database(lockPath, { timeout: 0 });
    try {
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      db.close();
      if ((error as { code?: string }).code !== 'SQLITE_BUSY')
        throw openError(lockPath, error, 'lock file');
      // The holder writes its pid just after taking the lock and removes it just before
      // letting go: a missing pid is a moment to wait, not an answer.
      const holder = readPid(pidPath);
      if (holder !== undefined || Date.now() > deadline) {
        throw new ExectlError(
          'cannot_start',
          `data folder ${dir} is in use by pid ${holder ?? 'unknown'}`,
          { hint },
        );
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
      continue;
    }
    writePid(pidPath);
    let held = true;
    return {
      release() {
        if (!held) return;
        held = false;
        try {
          rmSync(pidPath, { force: true });
        } finally {
          db.close();
        }
      },
    };
  }
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Written whole under a temporary name, then renamed: a reader never sees half a pid. */
function writePid(path: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${process.pid}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}
