// `exectl serve export` (SPEC §7): a data folder's state as a `--seed` file, offline (refused
// while a server runs on the folder). Secrets only with --with-secrets.
import { closeSync, fchmodSync, fstatSync, openSync, writeFileSync } from 'node:fs';
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
    throw new ExectlError('usage', `cannot write --out ${flags.out}: ${fsCause(err)}`, {
      hint: 'give --out a file in a folder you can write to',
    });
  }
  const accounts = seed.accounts.length;
  const secrets = flags.withSecrets === true ? 'with secrets' : 'without secrets';
  ctx.stderr.write(`exported ${accounts} account(s) of ${path} to ${flags.out} (${secrets})\n`);
}

/**
 * Writes `text` to `path`, a regular file left readable by its user only (0600) even when it
 * existed open to others: the export may hold secrets. Not a pipe or device (`/dev/stdout`),
 * whose mode is not the export's to change.
 */
function writePrivate(path: string, text: string): void {
  const fd = openSync(path, 'w', 0o600);
  try {
    if (fstatSync(fd).isFile()) fchmodSync(fd, 0o600);
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
