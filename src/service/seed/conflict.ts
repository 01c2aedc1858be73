// How applying a seed reports: the changes it made, and refusals naming the seed entry.
import { ExectlError } from '../../errors.js';

/** One line per change made, e.g. `created account a@b.c`; empty when all already matched. */
export type SeedChanges = string[];

/**
 * Runs one entry's change; a refusal (a 422 sentence from the store or a check) becomes a
 * usage error that names the entry's JSON path.
 */
export function seedEntry<T>(path: string, change: () => T): T {
  try {
    return change();
  } catch (err) {
    throw asSeedConflict(path, err);
  }
}

/** `err` as the refusal of the entry at `path` when it is a 422 sentence; else unchanged. */
export function asSeedConflict(path: string, err: unknown): unknown {
  if (err instanceof ExectlError && err.code === 'command_failed') {
    return seedConflict(path, err.message);
  }
  return err;
}

/** The seed cannot be applied to this data folder as it stands. */
export function seedConflict(path: string, problem: string): ExectlError {
  return new ExectlError('cannot_start', `seed ${path}: ${problem}`, {
    hint: 'change the seed, or the data folder (exectl run ..., exectl serve accounts ...)',
  });
}
