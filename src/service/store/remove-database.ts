import { rmSync } from 'node:fs';

/**
 * Deletes the database at `path` with its journal files; absent files are fine. The journals
 * go first: a write-ahead log left beside a newer database must never be replayed into it.
 */
export function removeDatabase(path: string): void {
  for (const file of [`${path}-wal`, `${path}-shm`, path]) rmSync(file, { force: true });
}
