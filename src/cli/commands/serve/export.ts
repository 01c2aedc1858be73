// `exectl serve export` (SPEC §7): a data folder's state as a `--seed` file, offline (refused
// while a server runs on the folder). Secrets only with --with-secrets.
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  openSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { ExectlError } from '../../../errors.js';
import { fsCause } from '../../../fs-cause.js';
import { DATABASE_FILE, exportSeed, openStore } from '../../../service/index.js';
import type { CliContext } from '../../context.js';
import { existingDataFolder, withLockedFolder } from './data.js';
import type { DataFolder } from './options.js';

interface ExportFlags {
  out?: string;
  withSecrets?: boolean;
}

/** Writes the seed to `--out` (left 0600: it may hold secrets) or to standard output. */
export async function runExport(
  ctx: CliContext,
  data: DataFolder,
  flags: ExportFlags,
): Promise<void> {
  const path = existingDataFolder(data, 'export works');
  const seed = withLockedFolder(path, () => {
    const store = openStore(join(path, DATABASE_FILE));
    try {
      return exportSeed(store, { withSecrets: flags.withSecrets === true });
    } finally {
      store.close();
    }
  });
  const text = `${JSON.stringify(seed, null, 2)}\n`;
  if (flags.out === undefined) {
    ctx.stdout.write(text);
    return;
  }
  try {
    writePrivate(flags.out, text);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ELOOP'
        ? 'it is a symbolic link, which is never followed'
        : code === 'ENXIO' || code === 'ENODEV'
          ? 'it is a pipe or socket, not a file'
          : fsCause(err);
    throw new ExectlError('usage', `cannot write --out ${flags.out}: ${why}`, {
      hint: 'give --out a new file, or one of yours, in a folder you can write to',
    });
  }
  const accounts = seed.accounts.length;
  const secrets = flags.withSecrets === true ? 'with secrets' : 'without secrets';
  ctx.stderr.write(`exported ${accounts} account(s) of ${path} to ${flags.out} (${secrets})\n`);
}

/**
 * Writes `text` to `path`, a regular file left readable by its user only (0600, and so made)
 * even when it existed open to others: the export may hold secrets. Never through a symlink
 * (one planted at `path` would send it wherever it points), never into another user's file
 * (its owner would read it), never into a pipe or socket (one planted there would hand the
 * export to whoever reads it; opening it without O_NONBLOCK would wait for a reader): all
 * refused before anything is written. A device (`/dev/null`) is written as it is: its mode is
 * not the export's to change.
 */
function writePrivate(path: string, text: string): void {
  const flags =
    constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  const fd = openSync(path, flags, 0o600);
  try {
    const found = fstatSync(fd);
    if (found.isFIFO() || found.isSocket()) throw new Error('it is a pipe or socket, not a file');
    if (found.isFile()) {
      if (found.uid !== process.geteuid?.()) throw new Error('it belongs to another user');
      fchmodSync(fd, 0o600);
      ftruncateSync(fd, 0);
    }
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
