import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory under the system temp dir, owned by one test file. */
export interface TempDir {
  /** Absolute path of the directory. */
  readonly path: string;
  /** `path` joined with `parts`. */
  join(...parts: string[]): string;
  /** Deletes the directory and everything in it; safe to call twice. */
  remove(): Promise<void>;
}

/**
 * Creates an empty temporary directory named `exectl-<label>-XXXXXX`. Pair it with
 * `after(() => dir.remove())` so no test leaves files behind.
 *
 * Paths stay short on purpose: a unix socket path (ssh-agent) must fit in 108 bytes.
 */
export async function createTempDir(label = 'test'): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), `exectl-${label}-`));
  return {
    path,
    join: (...parts) => join(path, ...parts),
    remove: () => rm(path, { recursive: true, force: true }),
  };
}
