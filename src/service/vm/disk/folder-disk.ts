// A VM's disk folder under the data folder: the disk itself (user mode, process runtime) or
// the home of a machine VM's disk image.
import { mkdir, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Creates the disk folder (mode 0700) and its missing parents. Fails when it already exists:
 * a disk is never shared or reused by accident. A machine VM's image goes inside it.
 */
export async function createDisk(diskDir: string): Promise<void> {
  await mkdir(dirname(diskDir), { recursive: true });
  await mkdir(diskDir, { mode: 0o700 });
}

/**
 * Throws when the disk folder is gone (the VM was removed, or never made): a record without
 * a disk is an internal inconsistency, never something to recreate silently.
 */
export async function assertDiskExists(diskDir: string): Promise<void> {
  const found = await stat(diskDir).catch(() => undefined);
  if (!found?.isDirectory()) throw new Error(`vm disk folder ${diskDir} does not exist`);
}

/** Deletes the disk and everything in it (symlinks removed, not followed); absent is fine. */
export async function removeDisk(diskDir: string): Promise<void> {
  await rm(diskDir, { recursive: true, force: true });
}
