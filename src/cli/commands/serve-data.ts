// The data folder of `exectl serve`: created private (0700) when missing, or a temporary
// folder for --ephemeral that is removed when the server stops.
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ExectlError } from '../../errors.js';
import type { DataFolder } from './serve-options.js';

/** A data folder ready for the store. */
export interface PreparedDataFolder {
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
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw folderError(path, err);
  }
  if (!statSync(path).isDirectory()) {
    throw new ExectlError('usage', `data folder ${path} is not a folder`, {
      hint: 'give --data a folder, or a path that does not exist yet',
    });
  }
  return { path, ephemeral: false, discard: () => {} };
}

/** The folder of `data` for the offline `accounts` commands, which need a kept one. */
export function keptDataFolder(data: DataFolder): { kind: 'dir'; path: string } {
  if (data.kind === 'ephemeral') {
    throw new ExectlError(
      'usage',
      'accounts commands work on a kept data folder, not --ephemeral',
      {
        hint: 'give --data DIR (or EXECTL_DATA)',
      },
    );
  }
  return data;
}

/** The kept data folder `data` names, which must already exist (to list or remove). */
export function existingDataFolder(data: DataFolder): string {
  const path = resolve(keptDataFolder(data).path);
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

function folderError(path: string, err: unknown): ExectlError {
  const code = (err as NodeJS.ErrnoException).code ?? 'error';
  return new ExectlError('usage', `cannot create the data folder ${path} (${code})`, {
    hint: 'give --data a folder you can write to',
  });
}
