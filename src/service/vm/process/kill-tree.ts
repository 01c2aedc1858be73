// Killing a process tree without cgroups: every command runs as the leader of its own session,
// and the session id survives forks, re-parenting and `setpgid` (job-control shells); only an
// explicit `setsid` (a deliberate background process) leaves it.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { listProcesses, type ProcStat } from './proc-table.js';

// A tree that forks while being killed is caught on a later round; 50 rounds end even a fork
// loop, since each round kills every member it sees.
const MAX_ROUNDS = 50;

/**
 * SIGKILLs `pids` until none is alive, re-reading /proc each round with `select` (a process
 * may fork between a scan and the kill). Never signals the server itself.
 */
export async function killUntilGone(
  select: (processes: ProcStat[]) => number[] | Promise<number[]>,
): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const pids = (await select(await listProcesses())).filter((pid) => pid !== process.pid);
    if (pids.length === 0) return;
    for (const pid of pids) signal(pid);
    await nextTurn();
  }
}

/** Kills every process of the session `sid`: first its process group at once, then stragglers. */
export async function killSession(sid: number): Promise<void> {
  if (sid <= 1 || sid === process.pid) return;
  signal(-sid);
  await killUntilGone((all) => all.filter((p) => p.session === sid).map((p) => p.pid));
}

/** True while the process group `pgid` has a member (a cheap probe: no /proc scan). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(target: number): void {
  try {
    process.kill(target, 'SIGKILL');
  } catch {
    // Already gone (ESRCH) between the scan and the kill.
  }
}
