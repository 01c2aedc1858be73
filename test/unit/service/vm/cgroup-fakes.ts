// Fake cgroup hierarchies in a temp folder, laid out as the kernel lays out v1 and v2, for the
// cgroup backends' unit tests. A real cgroupfs makes a new folder's files itself; here the
// backends write plain files and the tests play the kernel for what it reports.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CgroupSources } from '../../../../src/service/vm/cgroups/index.js';
import type { TempDir } from '../../../helpers/tmp.js';

/** The v1 hierarchies of a typical host: cpu and cpuacct co-mounted, as most distributions do. */
const V1_MOUNTS = ['memory', 'pids', 'cpu,cpuacct', 'freezer'];

/** A v1 host in `dir`: a folder per hierarchy, the server in each one's root cgroup. */
export async function fakeV1(
  dir: TempDir,
  options: { swapAccounting?: boolean; mounts?: string[] } = {},
): Promise<CgroupSources> {
  const mounts = options.mounts ?? V1_MOUNTS;
  const lines = mounts.map(
    (m, i) => `${30 + i} 25 0:${40 + i} / ${dir.join(m)} rw,relatime - cgroup cgroup rw,${m}`,
  );
  for (const m of mounts) await mkdir(dir.join(m, 'exectl'), { recursive: true });
  if (options.swapAccounting ?? true) {
    await writeFile(dir.join('memory', 'exectl', 'memory.memsw.limit_in_bytes'), '');
  }
  return sources(dir, lines, mounts.map((m, i) => `${i + 1}:${m}:/`).join('\n'));
}

/** A v2 host in `dir` with the controllers `controllers` at its root. */
export async function fakeV2(
  dir: TempDir,
  options: { controllers?: string; swapAccounting?: boolean } = {},
): Promise<CgroupSources> {
  const root = dir.join('unified');
  await mkdir(join(root, 'exectl'), { recursive: true });
  await writeFile(
    join(root, 'cgroup.controllers'),
    `${options.controllers ?? 'cpuset cpu io memory hugetlb pids'}\n`,
  );
  if (options.swapAccounting ?? true) await writeFile(join(root, 'exectl', 'memory.swap.max'), '');
  const line = `29 25 0:26 / ${root} rw,nosuid - cgroup2 cgroup2 rw,nsdelegate`;
  return { ...(await sources(dir, [line], '0::/\n')), root };
}

/** The fake host's kernel `pid_max` and memory (this machine's kind: 32768 pids, 24 GiB). */
export const FAKE_PID_MAX = 32768;
export const FAKE_MEM_TOTAL_KIB = 24 * 2 ** 20;

async function sources(dir: TempDir, mountLines: string[], own: string): Promise<CgroupSources> {
  const mountinfo = dir.join('mountinfo');
  const ownCgroup = dir.join('own-cgroup');
  const pidMax = dir.join('pid_max');
  const meminfo = dir.join('meminfo');
  await writeFile(mountinfo, `${mountLines.join('\n')}\n`);
  await writeFile(ownCgroup, own);
  await writeFile(pidMax, `${FAKE_PID_MAX}\n`);
  await writeFile(
    meminfo,
    `MemTotal:       ${FAKE_MEM_TOTAL_KIB} kB\nMemFree:        1048576 kB\n`,
  );
  return { mountinfo, ownCgroup, root: dir.join('unified'), pidMax, meminfo };
}

/** The text of `file` in `dir`, or undefined when the backend never wrote it. */
export function written(dir: string, file: string): Promise<string | undefined> {
  return readFile(join(dir, file), 'utf8').catch(() => undefined);
}
