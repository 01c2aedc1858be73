// A VM's disk: a folder under the data folder, owned by the id the VM's root maps to.
import { lchown, lstat, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Who owns a VM's files on the host. */
export interface DiskOwner {
  uid: number;
  gid: number;
}

/**
 * Creates the disk folder (mode 0700: private to the VM's id) and its missing parents. With
 * an owner (root server), hands it to the VM's id. Fails when it already exists: a disk is
 * never shared or reused by accident.
 */
export async function createDisk(diskDir: string, owner?: DiskOwner): Promise<void> {
  await mkdir(dirname(diskDir), { recursive: true });
  await mkdir(diskDir, { mode: 0o700 });
  if (owner !== undefined) await lchown(diskDir, owner.uid, owner.gid);
}

/**
 * Throws when the disk folder is gone (the VM was removed, or never made): a record without
 * a disk is an internal inconsistency, never something to recreate silently.
 */
export async function assertDiskExists(diskDir: string): Promise<void> {
  const found = await stat(diskDir).catch(() => undefined);
  if (!found?.isDirectory()) throw new Error(`vm disk folder ${diskDir} does not exist`);
}

/**
 * Makes every file of the disk belong to the VM's id, when the folder itself does not (a
 * disk made by the process runtime, or copied from elsewhere). Symlinks are changed, never
 * followed; a file with several hard links is left alone, since its other names may be
 * outside the disk (a process-runtime command, running as root, could have linked one in).
 */
export async function ensureDiskOwner(diskDir: string, owner: DiskOwner): Promise<void> {
  const top = await stat(diskDir);
  if (top.uid === owner.uid && top.gid === owner.gid) return;
  await chownTree(diskDir, owner);
}

async function chownTree(path: string, owner: DiskOwner): Promise<void> {
  await lchown(path, owner.uid, owner.gid);
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) await chownTree(child, owner);
    else if ((await lstat(child)).nlink === 1) await lchown(child, owner.uid, owner.gid);
  }
}

/** Deletes the disk and everything in it (symlinks removed, not followed); absent is fine. */
export async function removeDisk(diskDir: string): Promise<void> {
  await rm(diskDir, { recursive: true, force: true });
}
