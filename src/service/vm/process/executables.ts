import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_PATH } from './command-env.js';

/**
 * The absolute path of a system tool (bwrap, nsenter...), searched in {@link DEFAULT_PATH}
 * only: the server never runs a same-named program from a user's PATH as root.
 */
export function findExecutable(name: string): string | undefined {
  for (const dir of DEFAULT_PATH.split(':')) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder; try the next.
    }
  }
  return undefined;
}
