// The data folder of `exectl serve`: created private (0700) when missing, or a temporary
// folder for --ephemeral that is removed when the server stops. And the files named on the
// command line: a file that cannot be read is a usage error naming the flag, not a crash.
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ExectlError } from '../../../errors.js';
import { fsCause } from '../../../fs-cause.js';
import { lockDataFolder } from '../../../service/index.js';
import type { DataFolder } from './options.js';

/** A data folder ready for the store. */
interface PreparedDataFolder {
  /** Absolute path. */
  path: string;
  ephemeral: boolean;
  /**
   * Deletes an ephemeral folder (synchronous, so that it also runs on a forced exit); does
   * nothing for a kept folder. Safe to call twice.
   */
  discard(): void;
}

/** Creates the folder `data` names (parents too, private) or a fresh temporary one. */
export async function prepareDataFolder(data: DataFolder): Promise<PreparedDataFolder> {
  if (data.kind === 'ephemeral') {
    const path = await mkdtemp(join(tmpdir(), 'exectl-serve-'));
    return {
      path,
      ephemeral: true,
      discard: () => rmSync(path, { recursive: true, force: true }),
    };
  }
  const path = resolve(data.path);
  // The folder holds the SSH host key and every VM's disk: only its user may enter it.
  makeFolder(path, path);
  if (!statSync(path).isDirectory()) {
    throw new ExectlError('usage', `data folder ${path} is not a folder`, {
      hint: 'give --data a folder, or a path that does not exist yet',
    });
  }
  return { path, ephemeral: false, discard: () => {} };
}

/**
 * The folder of `data` for an offline command, which needs a kept one; `subject` starts the
 * refusal of --ephemeral, e.g. `accounts commands work`.
 */
export function keptDataFolder(data: DataFolder, subject: string): { kind: 'dir'; path: string } {
  if (data.kind === 'ephemeral') {
    throw new ExectlError('usage', `${subject} on a kept data folder, not --ephemeral`, {
      hint: 'give --data DIR (or EXECTL_DATA)',
    });
  }
  return data;
}

/** The kept data folder `data` names, which must already exist (to list, remove or reset). */
export function existingDataFolder(data: DataFolder, subject: string): string {
  const path = resolve(keptDataFolder(data, subject).path);
  let isFolder = false;
  try {
    isFolder = statSync(path).isDirectory();
  } catch {
    // missing: reported below
  }
  if (!isFolder) {
    throw new ExectlError('usage', `no data folder at ${path}`, {
      hint: 'start `exectl serve` once, or give the right --data DIR',
    });
  }
  return path;
}

/**
 * Runs `work` holding the lock of the data folder `dataDir` (refused while a server runs on
 * it), released whatever happens: how every offline command touches a folder.
 */
export function withLockedFolder<T>(dataDir: string, work: () => T): T {
  const lock = lockDataFolder(dataDir, 'stop that server first, then run this again');
  try {
    return work();
  } finally {
    lock.release();
  }
}

/**
 * A warning when the data folder at `path` can be read by other users (its files are private,
 * but their names and the VM disks' are not), or undefined.
 */
export function openFolderWarning(path: string): string | undefined {
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o044) === 0) return undefined;
  const octal = mode.toString(8).padStart(4, '0');
  return `data folder ${path} can be read by other users (mode ${octal}) — chmod 700 ${path}`;
}

/**
 * Creates the folder `path` and its missing parents, private (0700). Not `mkdirSync`'s
 * `recursive`: on a file system that refuses new folders with ENOENT although the parent
 * exists (/proc) Node 20 retries that forever.
 */
function makeFolder(path: string, dataDir: string): void {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    const parent = dirname(path);
    if (code !== 'ENOENT' || parent === path || existsSync(parent)) {
      throw folderError(dataDir, err);
    }
    makeFolder(parent, dataDir);
    makeFolder(path, dataDir); // the parent exists now: at most one more try
  }
}

function folderError(path: string, err: unknown): ExectlError {
  // ENOENT although the parent exists: the file system itself says no (/proc, /sys).
  const refused = (err as NodeJS.ErrnoException).code === 'ENOENT';
  const cause = refused ? 'its file system does not allow it (ENOENT)' : fsCause(err);
  return new ExectlError('usage', `cannot create the data folder ${path}: ${cause}`, {
    hint: 'give --data a folder you can write to',
  });
}

/** The bytes of `path`, given with `flag`. */
export async function readUserFile(path: string, flag: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new ExectlError('usage', `${flag} ${path} cannot be read (${code})`, {
      hint: 'check the path and its permissions',
    });
  }
}

/** The text (UTF-8) of `path`, given with `flag`. */
export async function readUserText(path: string, flag: string): Promise<string> {
  return (await readUserFile(path, flag)).toString('utf8');
}
