// What the host's /proc says about processes: the only way to find every member of a session
// (a process tree that may have re-parented) without a cgroup.
import { readdir, readFile, readlink } from 'node:fs/promises';

/** The fields of `/proc/<pid>/stat` the runtimes use. */
export interface ProcStat {
  pid: number;
  /** One letter: R, S, D, Z (zombie: already dead, waiting to be reaped)... */
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
}

/**
 * Parses one `/proc/<pid>/stat` line. The command name in parentheses is chosen by the
 * process itself (it may hold spaces, parentheses, newlines), so the fields are read after
 * its last `)`. Returns undefined for anything that is not such a line.
 */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf(' (');
  const close = text.lastIndexOf(')');
  if (open < 1 || close < open) return undefined;
  const pid = text.slice(0, open);
  const fields = text
    .slice(close + 1)
    .trim()
    .split(' ');
  const [state, ppid, pgrp, session] = fields;
  if (!/^[1-9]\d*$/.test(pid) || state === undefined || !/^[A-Za-z]$/.test(state)) {
    return undefined;
  }
  const numbers = [ppid, pgrp, session].map((f) =>
    f !== undefined && /^\d+$/.test(f) ? Number(f) : NaN,
  );
  if (numbers.some((n) => Number.isNaN(n))) return undefined;
  const [parent = 0, group = 0, sid = 0] = numbers;
  return { pid: Number(pid), state, ppid: parent, pgrp: group, session: sid };
}

/** Every process visible in the host's /proc that is still alive (zombies left out). */
export async function listProcesses(): Promise<ProcStat[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const stats = await Promise.all(
    pids.map((pid) => readFile(`/proc/${pid}/stat`, 'utf8').then(parseProcStat, () => undefined)),
  );
  return stats.filter((s): s is ProcStat => s !== undefined && s.state !== 'Z');
}

/** The working directory of a process, or undefined when it is gone or not ours to read. */
export async function processCwd(pid: number): Promise<string | undefined> {
  return readlink(`/proc/${pid}/cwd`).catch(() => undefined);
}
