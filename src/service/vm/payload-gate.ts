// The payload (in-vm-launch.ts) is the gate of every command: nothing of the user's runs in the
// VM before the in-VM launcher has read it. A machine VM's command must be in the VM's cgroups
// (its limits, its freezer) by then. nsenter forks exactly once, to enter the VM's pid
// namespace, and its child becomes the in-VM launcher, which waits for the payload; so the
// server moves that child into the cgroups, then sends the payload, and every process of the
// command descends from it. Why not a shell that joins the cgroups before nsenter, as before:
// that was one more program per command, about 5 of its 30 ms.
import type { ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { PAYLOAD_FD } from './in-vm-launch.js';

/** What {@link sendPayload} needs of a launch. */
export interface PayloadLaunch {
  /** Data for fd {@link PAYLOAD_FD}; none: the process has no such fd. */
  payload?: Buffer;
  /**
   * cgroup.procs files the launched process's only child (nsenter's, in the VM) joins before
   * the payload is sent. Absent: the payload goes at once.
   */
  cgroupProcs?: readonly string[];
}

const CHILD_TIMEOUT_MS = 10_000;

/**
 * Sends the launch's payload to `child` and closes its fd, once the cgroups are joined.
 * Resolves with why the command could not enter the VM (the child is killed then), or
 * undefined. A launcher that died early just loses the payload.
 */
export async function sendPayload(
  child: ChildProcess,
  launch: PayloadLaunch,
): Promise<string | undefined> {
  const pipe = child.stdio[PAYLOAD_FD] as Writable | null | undefined;
  if (launch.payload === undefined || pipe == null) return undefined;
  pipe.on('error', () => {});
  const files = launch.cgroupProcs ?? [];
  if (files.length > 0 && child.pid !== undefined) {
    try {
      const inVm = await onlyChild(child, child.pid);
      if (inVm === undefined) return undefined;
      await Promise.all(files.map((file) => writeFile(file, String(inVm))));
    } catch (err) {
      child.kill('SIGKILL');
      return `could not join the VM's cgroups: ${(err as Error).message}`;
    }
  }
  pipe.end(launch.payload);
  return undefined;
}

// The pid of `pid`'s child once it has one; undefined when `child` ended first.
async function onlyChild(child: ChildProcess, pid: number): Promise<number | undefined> {
  const deadline = Date.now() + CHILD_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) return undefined;
    const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
    const first = Number(text.trim().split(' ')[0]);
    if (Number.isInteger(first) && first > 1) return first;
    if (Date.now() > deadline) throw new Error('nsenter started no process in the VM');
    await sleep(1);
  }
}
