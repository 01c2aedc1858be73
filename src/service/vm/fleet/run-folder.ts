// The server's run folder: its VMs' mount points, and the client's launcher.
// It lives in the system's temporary folder: unix socket paths are limited to 107 bytes, and
// the VMs' ids must reach it (the data folder may be private). Its name is mkdtemp's, never a
// predictable one: in a shared /tmp another user could make that name first (a folder, a
// symlink) and stop the server from starting, or have it work in the squatter's folder. The
// name is recorded in the data folder, whose lock makes it this server's alone, so the folder a
// killed server left behind is found and cleared at the next start.
import { lstat, mkdtemp, readFile, rm, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** In the data folder: the path of the run folder of the server that holds the data folder. */
export const RUN_FOLDER_RECORD = 'run-folder';

const PREFIX = 'exectl-run-';

/**
 * Clears the run folder a previous server of `dataDir` left (when it is still what that server
 * made: a folder of ours, not a symlink), makes a fresh one (mode 0711) and records it.
 */
export async function makeRunFolder(dataDir: string): Promise<string> {
  await removeRecorded(dataDir);
  const runDir = await mkdtemp(join(tmpdir(), PREFIX));
  await chmod(runDir, 0o711);
  await writeFile(join(dataDir, RUN_FOLDER_RECORD), `${runDir}\n`, { mode: 0o600 });
  return runDir;
}

/** Deletes the run folder and its record (the server stops). */
export async function removeRunFolder(dataDir: string, runDir: string): Promise<void> {
  await rm(runDir, { recursive: true, force: true });
  await rm(join(dataDir, RUN_FOLDER_RECORD), { force: true });
}

// Only a folder that is surely the one a server of ours made goes: in the temporary folder,
// with our prefix, a real folder owned by this server's user. Anything else by that name (the
// temporary folder was cleaned, and another user made it since) is left as it is.
async function removeRecorded(dataDir: string): Promise<void> {
  const recorded = (
    await readFile(join(dataDir, RUN_FOLDER_RECORD), 'utf8').catch(() => '')
  ).trim();
  if (dirname(recorded) !== tmpdir() || !basename(recorded).startsWith(PREFIX)) return;
  const found = await lstat(recorded).catch(() => undefined);
  if (found?.isDirectory() !== true || found.uid !== process.getuid?.()) return;
  await rm(recorded, { recursive: true, force: true });
}
