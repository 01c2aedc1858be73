// `exectl serve reset` (SPEC §7): empties a data folder offline, so that the next start
// bootstraps again; refused while a server runs on it.
import { emptyDataFolder } from '../../../service/index.js';
import type { CliContext } from '../../context.js';
import { existingDataFolder, withLockedFolder } from './data.js';
import type { DataFolder } from './options.js';

/** Removes every account, key, VM with its disk and integration; prints one line. */
export async function runReset(ctx: CliContext, data: DataFolder): Promise<void> {
  const path = existingDataFolder(data, 'reset works');
  const removed = withLockedFolder(path, () => emptyDataFolder(path));
  ctx.stdout.write(
    `emptied data folder ${path}: removed ${removed.accounts} account(s) and ${removed.vms} VM(s); the next start bootstraps again\n`,
  );
}
