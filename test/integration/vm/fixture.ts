// A VM runtime in a temporary data folder, with helpers to run commands and to look at the
// host's processes from outside the VMs.
import { randomInt } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createRuntime } from '../../../src/service/vm/index.js';
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
  let disks = 0;
  const fixture: VmFixture = {
    runtime: createRuntime(kind),
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
      fixture.runtime = createRuntime(kind);
    },
    async close() {
      await fixture.runtime.shutdown();
      await dir.remove();
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
