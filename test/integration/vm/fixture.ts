// A VM runtime in a temporary data folder, with helpers to run commands and to look at the
// host's processes from outside the VMs.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { createRuntime, detectSandboxMode } from '../../../src/service/vm/index.js';
import type {
  ExecOptions,
  ExecResult,
  RuntimeKind,
  VmRuntime,
  VmSpec,
} from '../../../src/service/vm/index.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

export interface Ran extends ExecResult {
  /** Everything the command wrote, stdout and stderr interleaved. */
  output: string;
}

export interface VmFixture {
  runtime: VmRuntime;
  dir: TempDir;
  /** The fake data folder (`<tmp>/data`); VM disks go in `data/vms/<n>`. */
  dataDir: string;
  /** A VM spec with a fresh disk folder (not created yet). */
  spec(name: string, env?: Record<string, string>): VmSpec;
  /** `spec` + `runtime.create`. */
  create(name: string, env?: Record<string, string>): Promise<VmSpec>;
  run(vm: VmSpec, command: string, options?: ExecOptions): Promise<Ran>;
  /** A runtime of the same kind on the same data folder (a server restart). */
  restartServer(): Promise<void>;
  /** Shuts the runtime down and deletes the data folder. */
  close(): Promise<void>;
}

export async function openVmFixture(kind: RuntimeKind): Promise<VmFixture> {
  const dir = await createTempDir(`vm-${kind}`);
  const dataDir = dir.join('data');
  const runDir = newRunDir();
  let disks = 0;
  const fixture: VmFixture = {
    runtime: await runtimeFor(kind, runDir),
    dir,
    dataDir,
    spec: (name, env = {}) => ({ name, diskDir: dir.join('data', 'vms', String(++disks)), env }),
    async create(name, env) {
      const vm = fixture.spec(name, env);
      await fixture.runtime.create(vm);
      return vm;
    },
    async run(vm, command, options = {}) {
      const chunks: Buffer[] = [];
      const result = await fixture.runtime.exec(vm, command, {
        ...options,
        onOutput: (chunk) => chunks.push(chunk),
      });
      return { ...result, output: Buffer.concat(chunks).toString('utf8') };
    },
    async restartServer() {
      await fixture.runtime.shutdown();
      fixture.runtime = await runtimeFor(kind, runDir);
    },
    async close() {
      await fixture.runtime.shutdown();
      await dir.remove();
      await rm(runDir, { recursive: true, force: true });
    },
  };
  return fixture;
}

/**
 * A number no other process on the machine has in its command line: `sleep <marker>` is a
 * process a test can find from the host with {@link hostPidsWith}.
 */
export function uniqueMarker(): string {
  return `${randomInt(100_000, 999_999)}.${randomInt(100_000, 999_999)}`;
}

/** Pids of host processes whose command line contains `text` (seen from outside every VM). */
export async function hostPidsWith(text: string): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const lines = await Promise.all(
    pids.map(async (pid) => {
      const raw = await readFile(`/proc/${pid}/cmdline`).catch(() => Buffer.alloc(0));
      const state = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      // A zombie is dead already; only its parent's bookkeeping is left.
      const zombie = / Z /.test(state.slice(state.lastIndexOf(')')));
      return zombie ? '' : raw.toString('utf8').split('\0').join(' ');
    }),
  );
  return pids.filter((_, i) => lines[i]!.includes(text)).map(Number);
}

/**
 * Host pids of the processes that run `sleep <marker>` themselves (argv[0] is `sleep`): not a
 * shell still forking the job, whose command line may name the marker too.
 */
export async function hostSleepers(marker: string): Promise<number[]> {
  return hostPidsWhere(marker, (argv) => argv[0] === 'sleep');
}

/**
 * The host pid of the `sleep <marker>` a VM started in the background. `ssh vm "setsid sleep
 * … &"` returns once the VM's shell has forked the job, which may not have exec'd sleep yet
 * (a loaded run once found no such process at all), so this polls, bounded, until the sleep
 * itself runs.
 */
export function hostSleeper(marker: string): Promise<number> {
  return hostProcess(marker, (argv) => argv[0] === 'sleep');
}

/** {@link hostSleeper}, asserting that no other process runs `sleep <marker>` besides it. */
export async function onlyHostSleeper(marker: string): Promise<number> {
  const pid = await hostSleeper(marker);
  assert.deepEqual(await hostSleepers(marker), [pid], `one process runs "sleep ${marker}"`);
  return pid;
}

/**
 * The host pid of the one process whose command line names `marker` and whose argv passes
 * `is`, polled for (bounded, 30 s) since a job the VM started may still be forking.
 */
export async function hostProcess(
  marker: string,
  is: (argv: string[]) => boolean,
): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [pid] = await hostPidsWhere(marker, is);
    if (pid !== undefined) return pid;
    if (Date.now() > deadline) throw new Error(`no host process runs "${marker}" after 30 s`);
    await sleep(50);
  }
}

async function hostPidsWhere(marker: string, is: (argv: string[]) => boolean): Promise<number[]> {
  const found: number[] = [];
  for (const pid of await hostPidsWith(marker)) {
    const raw = await readFile(`/proc/${pid}/cmdline`).catch(() => Buffer.alloc(0));
    if (is(raw.toString('utf8').split('\0'))) found.push(pid);
  }
  return found;
}

/**
 * A runtime of `kind` as a server would make it here: machine VMs when the tests run as root
 * (their relay sockets and mount points in `runDir`), one-id sandboxes otherwise.
 */
export async function runtimeFor(kind: RuntimeKind, runDir = newRunDir()): Promise<VmRuntime> {
  if (kind === 'process') return createRuntime('process', { kind: 'user' });
  const found = await detectSandboxMode({ runDir, inbound: () => [] });
  if ('problem' in found) throw new Error(`no bwrap VMs here: ${found.problem}`);
  return createRuntime('bwrap', found.mode);
}

/**
 * A run folder as a server makes one: directly in the system's temporary folder, which the
 * VMs' ids can traverse (a test's own temporary folder is private to root).
 */
export function newRunDir(): string {
  const runDir = mkdtempSync(join(tmpdir(), 'exectl-run-'));
  // Also for the scripts that run a runtime in a process of their own.
  process.once('exit', () => rmSync(runDir, { recursive: true, force: true }));
  return runDir;
}

/**
 * A file of the VM's disk as the host sees it, with its host owner: a machine VM's disk is an
 * image mounted only for the VM, so it is read through a VM process's root (/proc/<pid>/root);
 * other disks are plain folders.
 */
export async function fileOnHost(
  fx: VmFixture,
  vm: VmSpec,
  path: string,
): Promise<{ text: string; uid: number; gid: number; idMap: string | null }> {
  if (!existsSync(join(vm.diskDir, 'disk.img'))) {
    const file = join(vm.diskDir, path);
    const { uid, gid } = await stat(file);
    return { text: await readFile(file, 'utf8'), uid, gid, idMap: null };
  }
  const marker = uniqueMarker();
  await fx.run(vm, `setsid sleep ${marker} > /dev/null 2>&1 &`);
  const [pid] = await hostPidsWith(`sleep ${marker}`);
  try {
    const file = `/proc/${pid}/root/root/${path}`;
    const { uid, gid } = await stat(file);
    const idMap = await readFile(`/proc/${pid}/uid_map`, 'utf8');
    return { text: await readFile(file, 'utf8'), uid, gid, idMap };
  } finally {
    process.kill(pid!, 'SIGKILL');
  }
}

/** The capability mask with every capability this kernel knows, as /proc/<pid>/status shows it. */
export async function allCapabilities(): Promise<string> {
  const last = Number(await readFile('/proc/sys/kernel/cap_last_cap', 'utf8'));
  return (2n ** BigInt(last + 1) - 1n).toString(16).padStart(16, '0');
}
