// `cp`: a VM's disk copied to a new VM. A folder disk (process runtime, user mode) is copied
// as it is; a machine VM's disk image is copied whole (sparse), then every owner in it is moved
// from the source's id range to the copy's, so that inside the copy each file has the same
// owner as in the source, and no file of the copy belongs to the source's host ids.
import { constants } from 'node:fs';
import { copyFile, mkdir, readdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createDisk, removeDisk } from './folder-disk.js';
import { freezeDisk } from './freeze.js';
import { IMAGE_NAME, hasImage, run } from './image.js';
import { findExecutable } from '../process/index.js';
import { IDS_PER_VM, RANGE_RECORD, idBaseOf, releaseIdRange } from '../id-ranges.js';
import type { MachineInit } from '../machine/index.js';
import type { MachineHost } from '../machine/index.js';
import { scriptText } from '../scripts/index.js';

/** Copies the folder disk `fromDir` to the new folder `toDir` (symlinks as symlinks). */
export async function copyFolderDisk(fromDir: string, toDir: string): Promise<void> {
  await createDisk(toDir);
  try {
    await run(tool('cp'), ['-a', '--reflink=auto', '--', `${fromDir}/.`, `${toDir}/`]);
  } catch (err) {
    await removeDisk(toDir);
    throw err;
  }
}

/**
 * Copies the image of the machine VM whose disk is `fromDir` into the new disk folder `toDir`,
 * which gets an id range of its own. When the source runs (`running`), its file system is
 * frozen (disk/freeze.ts) for the copy, so the copy is consistent. Once `signal` aborts, the
 * image copy is ended and no further step begins (the owners' shift, once begun, runs to its
 * end: it holds the copy mounted); it rejects with the abort's reason, `toDir` gone, the source
 * thawed.
 */
export async function copyMachineDisk(
  host: MachineHost,
  fromDir: string,
  toDir: string,
  running: MachineInit | undefined,
  signal: AbortSignal,
): Promise<void> {
  if (!(await hasImage(fromDir))) {
    throw new Error(`the disk of ${fromDir} has no image yet: boot the VM once, then copy it`);
  }
  const fromBase = await idBaseOf(fromDir, host.registry);
  signal.throwIfAborted();
  await createDisk(toDir);
  try {
    const toBase = await idBaseOf(toDir, host.registry);
    await copyImage(host, join(fromDir, IMAGE_NAME), join(toDir, IMAGE_NAME), running, signal);
    signal.throwIfAborted();
    await copyBeside(fromDir, toDir);
    signal.throwIfAborted();
    await shiftOwners(host, toDir, fromBase, toBase);
  } catch (err) {
    await releaseIdRange(toDir, host.registry);
    await removeDisk(toDir);
    throw err;
  }
}

// What the disk folder holds beside the image (e.g. the marker of its layout) is copied too,
// but for the source's id range: the copy claimed its own.
async function copyBeside(fromDir: string, toDir: string): Promise<void> {
  for (const entry of await readdir(fromDir, { withFileTypes: true })) {
    if (!entry.isFile() || entry.name === IMAGE_NAME || entry.name === RANGE_RECORD) continue;
    await copyFile(join(fromDir, entry.name), join(toDir, entry.name), constants.COPYFILE_EXCL);
  }
}

async function copyImage(
  host: MachineHost,
  from: string,
  to: string,
  running: MachineInit | undefined,
  signal: AbortSignal,
) {
  const { tools } = host;
  const frozen =
    running === undefined
      ? undefined
      : await freezeDisk(tools, running.launcherPid, running.mountPoint);
  try {
    await run(tools.cp, ['--sparse=always', '--reflink=auto', '--', from, to], [0], signal);
  } catch (err) {
    // An aborted copy says why it was aborted, not that cp was killed.
    signal.throwIfAborted();
    throw err;
  } finally {
    await frozen?.thaw();
  }
}

async function shiftOwners(host: MachineHost, diskDir: string, fromBase: number, toBase: number) {
  const mountPoint = join(diskDir, 'exectl-copy-mount');
  await mkdir(mountPoint, { mode: 0o700 });
  try {
    const shift = scriptText('shift-image-owners.sh');
    const script = ['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', shift];
    const image = join(diskDir, IMAGE_NAME);
    const numbers = [fromBase, toBase, IDS_PER_VM].map(String);
    const words = [
      'shift',
      image,
      mountPoint,
      host.tools.perl,
      scriptText('shift-owners.pl'),
      ...numbers,
    ];
    await run(host.tools.unshare, [...script, ...words]);
  } finally {
    await rmdir(mountPoint);
  }
}

function tool(name: string): string {
  const path = findExecutable(name);
  if (path === undefined) throw new Error(`${name} is not installed`);
  return path;
}
