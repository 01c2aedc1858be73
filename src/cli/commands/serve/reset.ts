// `exectl serve reset` (SPEC §7): empties a data folder offline, so that the next start
// bootstraps again; refused while a server runs on it. On a terminal it asks first (`--yes`
// skips the question); without one (scripts, test suites) it proceeds.
import { ExectlError } from '../../../errors.js';
import { emptyDataFolder, lockDataFolder, releaseVmIdRanges } from '../../../service/index.js';
import { canAsk, confirm } from '../../confirm.js';
import type { CliContext } from '../../context.js';
import { existingDataFolder } from './data.js';
import type { DataFolder } from './options.js';

/**
 * Gives the VMs' host-wide id ranges back, then removes every account, key, VM with its disk
 * and integration; prints one line.
 */
export async function runReset(
  ctx: CliContext,
  data: DataFolder,
  options: { yes?: boolean },
): Promise<void> {
  const path = existingDataFolder(data, 'reset works');
  // Held while asking too: no server can start on the folder between the answer and the reset.
  const lock = lockDataFolder(path, 'stop that server first, then run this again');
  let removed;
  try {
    if (options.yes !== true && canAsk(ctx)) {
      const question = `exectl: empty data folder ${path}: every account, key, VM with its disk and integration?`;
      if (!(await confirm(ctx, question))) {
        throw new ExectlError('usage', `reset cancelled: data folder ${path} is unchanged`, {
          hint: 'answer y to empty it, or pass --yes',
        });
      }
    }
    // The ranges first: their records are in the VM disks the reset deletes.
    await releaseVmIdRanges(path);
    removed = emptyDataFolder(path);
  } finally {
    lock.release();
  }
  ctx.stdout.write(
    `emptied data folder ${path}: removed ${removed.accounts} account(s) and ${removed.vms} VM(s); the next start bootstraps again\n`,
  );
}
