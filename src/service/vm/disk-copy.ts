// `cp`: a VM's disk copied to a new VM. A folder disk (process runtime, user mode) is copied
// as it is; a machine VM's disk image is copied whole (sparse), then every owner in it is moved
// from the source's id range to the copy's, so that inside the copy each file has the same
// owner as in the source, and no file of the copy belongs to the source's host ids.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { constants } from 'node:fs';
import { chmod, copyFile, lchown, lstat, mkdir, readdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_PATH } from './command-env.js';
import { createDisk, removeDisk } from './disk.js';
import { IMAGE_NAME, hasImage, run } from './disk-image.js';
import { findExecutable } from './executables.js';
import { IDS_PER_VM, RANGE_RECORD, idBaseOf, releaseIdRange } from './id-ranges.js';
import type { MachineInit } from './machine-init.js';
import type { MachineHost } from './sandbox-identity.js';

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
 * frozen (fsfreeze: written out whole, writers wait) for the copy, so the copy is consistent.
 */
export async function copyMachineDisk(
  host: MachineHost,
  fromDir: string,
  toDir: string,
  running: MachineInit | undefined,
): Promise<void> {
  if (!(await hasImage(fromDir))) {
    throw new Error(`the disk of ${fromDir} has no image yet: boot the VM once, then copy it`);
  }
  const fromBase = await idBaseOf(fromDir, host.registry);
  await createDisk(toDir);
  try {
    const toBase = await idBaseOf(toDir, host.registry);
    await copyImage(join(fromDir, IMAGE_NAME), join(toDir, IMAGE_NAME), running);
    await copyBeside(fromDir, toDir);
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

async function copyImage(from: string, to: string, running: MachineInit | undefined) {
  const copy = () => run(tool('cp'), ['--sparse=always', '--reflink=auto', '--', from, to]);
  if (running === undefined) return void (await copy());
  // The image's mount lives in the mount namespace of the VM's launcher.
  const freeze = (how: '--freeze' | '--unfreeze') =>
    run(tool('nsenter'), [
      `--target=${running.launcherPid}`,
      '--mount',
      '--',
      tool('fsfreeze'),
      how,
      running.mountPoint,
    ]);
  await freeze('--freeze');
  try {
    await copy();
  } finally {
    await freeze('--unfreeze');
  }
}

// The copy's image mounted in a private mount namespace of its own, held by this shell (read
// through /proc/<its pid>/root) until its stdin closes. Our words only: paths of ours.
const HOLD_SCRIPT =
  'mount -o loop,nodev,nosuid,noatime "$1" "$2" || exit 125; echo mounted; read _; umount "$2"';

// Host root walks the copy while only the holder sees it mounted: nothing can change the tree
// meanwhile, and no symlink is followed (lstat, lchown; chmod only on what is not a symlink).
// chown clears set-id bits, which are put back. Owners outside the source's range (none
// should be) stay as they are.
async function shiftOwners(host: MachineHost, diskDir: string, fromBase: number, toBase: number) {
  const mountPoint = join(diskDir, 'exectl-copy-mount');
  await mkdir(mountPoint, { mode: 0o700 });
  const holder = spawn(
    host.tools.unshare,
    [
      ...['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', HOLD_SCRIPT, 'hold'],
      ...[join(diskDir, IMAGE_NAME), mountPoint],
    ],
    { cwd: '/', env: { PATH: DEFAULT_PATH }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  holder.stdin.on('error', () => {});
  const exited = once(holder, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let errors = '';
  holder.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
  try {
    const [mounted] = (await Promise.race([once(holder.stdout, 'data'), exited])) as [unknown];
    if (!(mounted instanceof Buffer) || mounted.toString() !== 'mounted\n') {
      throw new Error(`could not mount the copy: ${errors.trim()}`);
    }
    const shift = (id: number) =>
      id >= fromBase && id < fromBase + IDS_PER_VM ? id - fromBase + toBase : id;
    await shiftTree(`/proc/${holder.pid}/root${mountPoint}`, shift);
  } finally {
    holder.stdin.end();
    await exited;
    await rmdir(mountPoint);
  }
  const [code] = await exited;
  if (code !== 0) throw new Error(`could not unmount the copy: ${errors.trim()}`);
}

async function shiftTree(root: string, shift: (id: number) => number): Promise<void> {
  const visit = async (file: string): Promise<void> => {
    const st = await lstat(file);
    const [uid, gid] = [shift(st.uid), shift(st.gid)];
    if (uid !== st.uid || gid !== st.gid) {
      await lchown(file, uid, gid);
      if (!st.isSymbolicLink() && (st.mode & 0o6000) !== 0) await chmod(file, st.mode & 0o7777);
    }
    if (st.isDirectory()) {
      await Promise.all((await readdir(file)).map((name) => visit(join(file, name))));
    }
  };
  await visit(root);
}

function tool(name: string): string {
  const path = findExecutable(name);
  if (path === undefined) throw new Error(`${name} is not installed`);
  return path;
}
