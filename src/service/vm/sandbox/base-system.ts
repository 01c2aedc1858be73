// The base system under every machine VM's root file system (SPEC §4): the host's own system,
// read-only, below a copy-on-write layer of the VM's. `/usr` (and any real /bin, /sbin, /lib*)
// are the host's folders themselves; `/etc` and the package manager's state in `/var` come from
// a snapshot made here, host-wide, once per state of the host's packages and accounts. The
// snapshot holds only what every user of the host may read (so no /etc/shadow, no private
// keys, no 0600 database) plus account files of its own with locked passwords, so `dpkg`,
// `apt-get` and `useradd` work inside on a consistent package database.
import { existsSync, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PATH, HostToolError, runHost } from '../process/index.js';
import { isSystemFolder, readHostRoot, type RootEntry } from './bwrap-args.js';
import { scriptText, type ScriptName } from '../scripts/index.js';

/** Where the snapshots live (beside the id-range claims). */
const DEFAULT_BASE_ROOT = '/var/lib/exectl/base-system';

/** Bump when the snapshot's contents change shape, so every host makes a new one. */
const FORMAT = 'v1';

/** The files whose change means the host's packages or accounts changed. */
const HOST_STATE = ['/var/lib/dpkg/status', '/etc/passwd', '/etc/group'];

/** Where the exectl client appears inside every VM (SPEC §4: read-only, on PATH). */
const CLIENT_DIR = '/opt/exectl';

/** The host's system folders a machine VM's root shows copy-on-write, and its top symlinks. */
interface HostSystem {
  /** `usr`, and `bin`, `sbin` and every `lib*` that is a real folder. */
  folders: string[];
  /** The others, symlinks (`/bin -> usr/bin` on merged-/usr systems): the same in the snapshot. */
  symlinks: { name: string; symlinkTarget: string }[];
}

/** The host's system, read once at start (sandbox/bwrap-args.ts reads the host's root). */
export function hostSystem(entries: readonly RootEntry[] = readHostRoot()): HostSystem {
  const system = entries.filter((e) => isSystemFolder(e.name) && e.name !== 'etc');
  return {
    folders: system
      .filter((e) => e.isDirectory)
      .map((e) => e.name)
      .sort(),
    symlinks: system.flatMap((e) =>
      e.symlinkTarget === undefined ? [] : [{ name: e.name, symlinkTarget: e.symlinkTarget }],
    ),
  };
}

/**
 * The snapshot for the host's current state, made when missing (a few seconds, once per host
 * state): `<root>/<key>`. Concurrent servers each make one in a temporary folder and the first
 * rename wins. A snapshot stays while any VM may use it: an older one is never deleted here.
 */
export async function ensureBaseSystem(
  { folders, symlinks }: HostSystem,
  root = DEFAULT_BASE_ROOT,
): Promise<string> {
  const key = hostStateKey(symlinks);
  const target = join(root, key);
  if (existsSync(target)) return target;
  await mkdir(root, { recursive: true, mode: 0o755 });
  const temp = join(root, `.making-${randomBytes(6).toString('hex')}`);
  await mkdir(temp, { mode: 0o755 });
  try {
    await runScript('snapshot-base.sh', [temp]);
    // The host's top-level symlinks as they are; its system folders as mount points.
    await runScript('base-top-level.sh', [
      temp,
      ...symlinks.flatMap((s) => [s.name, s.symlinkTarget]),
      '--',
      ...folders,
    ]);
    await rename(temp, target).catch(async (err: NodeJS.ErrnoException) => {
      // Another server made the same snapshot first: theirs is as good as ours.
      if (!existsSync(target)) throw err;
    });
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
  return target;
}

function hostStateKey(symlinks: HostSystem['symlinks']): string {
  const hash = createHash('sha256').update(FORMAT);
  for (const file of HOST_STATE) {
    const s = statSync(file, { throwIfNoEntry: false });
    hash.update(`${file}:${s?.size ?? '-'}:${s?.mtimeMs ?? '-'}\n`);
  }
  for (const s of symlinks) hash.update(`${s.name}->${s.symlinkTarget}\n`);
  return hash.digest('hex').slice(0, 16);
}

/** What the client's read-only mounts inside each VM are made of (host paths). */
export interface ClientMounts {
  /** The node binary running this server. */
  node: string;
  /** The package's own folders and files (bin, dist, package.json, node_modules when there). */
  package: { source: string; name: string }[];
  /** A folder of the server's holding the `exectl` launcher: the VM's `/opt/exectl/bin`. */
  bin: string;
}

/** The inside path of the client's launcher folder, on every VM command's PATH (VM_PATH). */
const CLIENT_BIN = `${CLIENT_DIR}/bin`;

/**
 * The exectl package this server runs from, as the VMs' client mounts. Writes the launcher
 * (`exectl`: this node on the package's own bin script) into `<runDir>/client-bin`.
 */
export async function clientMounts(runDir: string): Promise<ClientMounts> {
  const root = packageRoot();
  const names = ['bin', 'dist', 'package.json', 'node_modules'];
  const bin = join(runDir, 'client-bin');
  await mkdir(bin, { recursive: true, mode: 0o755 });
  await writeFile(
    join(bin, 'exectl'),
    `#!/bin/sh\nexec ${CLIENT_DIR}/node ${CLIENT_DIR}/package/bin/exectl.cjs "$@"\n`,
    { mode: 0o755 },
  );
  return {
    node: process.execPath,
    bin,
    package: names
      .filter((name) => existsSync(join(root, name)))
      .map((name) => ({ source: join(root, name), name })),
  };
}

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('the exectl package folder was not found');
    dir = parent;
  }
  return dir;
}

/** bwrap arguments that show the client read-only at {@link CLIENT_DIR}. */
export function clientMountArgs(mounts: ClientMounts): string[] {
  return [
    '--ro-bind',
    mounts.node,
    `${CLIENT_DIR}/node`,
    '--ro-bind',
    mounts.bin,
    CLIENT_BIN,
    ...mounts.package.flatMap((p) => ['--ro-bind', p.source, `${CLIENT_DIR}/package/${p.name}`]),
  ];
}

async function runScript(name: ScriptName, args: string[]): Promise<void> {
  const argv = ['-c', scriptText(name), 'snapshot', ...args];
  try {
    await runHost('/bin/sh', argv, { cwd: '/', env: { PATH: DEFAULT_PATH }, stdout: 'ignore' });
  } catch (err) {
    if (!(err instanceof HostToolError)) throw err;
    // The script's first complaint says what went wrong; later lines are its fallout.
    const first = err.output.trim().split('\n')[0];
    throw new Error(`making the VMs' base system failed: ${first}`);
  }
}
