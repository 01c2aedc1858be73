// A VM's disk when the server is root: an ext4 file system in a sparse image of fixed size,
// mounted (loop) for the VM's life in a mount namespace of its own. Why an image: a full VM
// disk fills that image only, never the host's file system and the database on it; and inside
// the VM, /proc/self/mountinfo names a loop device, not a host path.
import { mkdir, open, readdir, rename, rm, stat, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_PATH, runHost } from '../process/index.js';
import type { ImageTemplates } from './image-template.js';
import { scriptText } from '../scripts/index.js';

/** The image inside a VM's disk folder. */
export const IMAGE_NAME = 'disk.img';

/**
 * Beside the image, in the VM's disk folder (which the VM never reaches): written once the
 * image holds the layers of the VM's root file system (its folder `overlay`). An image without it is an older exectl's, whose top
 * folder was the VM's home, every name in it chosen by the VM: nothing there is trusted, all
 * of it moves into the new home.
 */
export const LAYOUT_MARKER = 'root-layout';

/** The e2fsprogs tools the images need (and util-linux's unshare, to fill one). */
export interface DiskTools {
  mkfs: string;
  dumpe2fs: string;
  e2fsck: string;
  resize2fs: string;
  unshare: string;
}

/**
 * Makes the image of `sizeBytes` from `images` (`scratch`: a path of the server's for the first
 * image of a size). Lazy initialisation keeps it sparse: a fresh 10 GiB disk costs a few
 * hundred KiB on the host. A folder disk of an older exectl (files beside no image) is copied
 * into the new image, its files given to the VM's root (`owner`), then removed.
 */
export async function createImage(
  tools: DiskTools,
  images: ImageTemplates,
  diskDir: string,
  sizeBytes: number,
  owner: number,
  scratch: string,
): Promise<void> {
  const image = join(diskDir, IMAGE_NAME);
  const ours = new Set([IMAGE_NAME, 'id-range', LAYOUT_MARKER]);
  const legacy = (await readdir(diskDir)).filter((n) => !ours.has(n));
  await images.makeImage(image, sizeBytes, scratch);
  try {
    // Old files are the VM's home, at the image's top until the first boot moves them into the
    // root file system; a fresh image has its layers made there at once (scripts/machine-root.pl).
    if (legacy.length > 0) await fillFromFolder(tools, diskDir, legacy, owner);
    else await writeFile(join(diskDir, LAYOUT_MARKER), '', { mode: 0o600 });
  } catch (err) {
    await rm(image, { force: true });
    throw err;
  }
  for (const name of [OLD_FILES, MOUNT_POINT]) {
    await rm(join(diskDir, name), { recursive: true, force: true });
  }
}

const OLD_FILES = 'exectl-folder-disk';
const MOUNT_POINT = 'exectl-mount';

// The old files move to a folder of their own first, so that the copy sees only them.
async function fillFromFolder(
  tools: DiskTools,
  diskDir: string,
  names: string[],
  owner: number,
): Promise<void> {
  const old = join(diskDir, OLD_FILES);
  const mountPoint = join(diskDir, MOUNT_POINT);
  await mkdir(old);
  await mkdir(mountPoint);
  for (const name of names) await rename(join(diskDir, name), join(old, name));
  const image = join(diskDir, IMAGE_NAME);
  const argv = [
    '--mount',
    '--propagation',
    'private',
    '--',
    '/bin/sh',
    '-c',
    scriptText('fill-image.sh'),
  ];
  await run(tools.unshare, [...argv, 'fill', image, mountPoint, old, String(owner)]);
}

/** True when the VM's disk folder already holds its image. */
export async function hasImage(diskDir: string): Promise<boolean> {
  return stat(join(diskDir, IMAGE_NAME)).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** The size of the VM's disk: its image's (the file system fills it exactly). */
export async function imageSize(diskDir: string): Promise<number> {
  return (await stat(join(diskDir, IMAGE_NAME))).size;
}

/** What the VM's image takes on the host (its allocated blocks; 0 without an image). */
export async function imageFootprint(diskDir: string): Promise<number> {
  return stat(join(diskDir, IMAGE_NAME)).then(
    (s) => s.blocks * 512,
    () => 0,
  );
}

/** Size and use of a mounted image, read through `mountPath` (e.g. via /proc/<pid>/root). */
export async function imageUsage(mountPath: string): Promise<{ size: number; used: number }> {
  const fs = await statfs(mountPath);
  return { size: fs.blocks * fs.bsize, used: (fs.blocks - fs.bfree) * fs.bsize };
}

/** Grows or shrinks an image that is not mounted (the VM is stopped). */
export async function resizeImageOffline(
  tools: DiskTools,
  diskDir: string,
  sizeBytes: number,
): Promise<void> {
  const image = join(diskDir, IMAGE_NAME);
  const current = (await stat(image)).size;
  // e2fsck exits 1 when it fixed something: still a consistent file system.
  await run(tools.e2fsck, ['-f', '-p', image], [0, 1]);
  if (sizeBytes > current) {
    await truncateTo(image, sizeBytes);
    await run(tools.resize2fs, [image]);
  } else {
    await run(tools.resize2fs, [image, `${Math.floor(sizeBytes / 1024)}K`]);
    await truncateTo(image, sizeBytes);
  }
}

async function truncateTo(image: string, sizeBytes: number): Promise<void> {
  const handle = await open(image, 'r+');
  try {
    await handle.truncate(sizeBytes);
  } finally {
    await handle.close();
  }
}

/**
 * The smallest size the VM's disk may shrink to: what resize2fs estimates its file system
 * needs (its data and metadata), in bytes. Works on a mounted image too.
 */
export async function minimumImageSize(tools: DiskTools, diskDir: string): Promise<number> {
  const image = join(diskDir, IMAGE_NAME);
  const blocks = /minimum size of the filesystem: (\d+)/.exec(
    await run(tools.resize2fs, ['-f', '-P', image]),
  );
  const blockSize = /^Block size:\s+(\d+)$/m.exec(await run(tools.dumpe2fs, ['-h', image]));
  if (blocks === null || blockSize === null)
    throw new Error(`cannot tell how small ${image} may be`);
  return Number(blocks[1]) * Number(blockSize[1]);
}

/**
 * Runs a tool of ours with our fixed arguments; resolves with its output, rejects with its last
 * line (or, once `signal` aborts, kills it and rejects with an AbortError).
 */
export function run(
  file: string,
  args: string[],
  okCodes: number[] = [0],
  signal?: AbortSignal,
): Promise<string> {
  return runHost(file, args, { env: { PATH: DEFAULT_PATH }, stdout: 'pipe', okCodes, signal });
}
