// The long-lived init sandbox of one VM: it owns the VM's namespaces, which every command of
// the VM joins, and its death takes every process of the VM with it (pid namespace).
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { DEFAULT_PATH, spawnHost, type ChildProcess } from '../process/index.js';
import { bwrapArgs, INFO_FD } from './bwrap-args.js';
import type { BwrapTools } from './tools.js';

/** A running VM sandbox. */
export interface VmInit {
  /** The host pid of the VM's pid 1: the process whose namespaces commands join. */
  readonly pid: number;
  /** The hostname the sandbox has now (a rename changes it in place). */
  hostname: string;
  /** False once the sandbox has ended, killed or not. */
  alive(): boolean;
  /** Settles once the sandbox has ended, killed or not. */
  readonly exited: Promise<void>;
  /** Kills every process of the VM; resolves once all of them are gone. */
  stop(): Promise<void>;
}

const STDERR_MAX = 4096;

/**
 * Starts the sandbox of a VM (user mode: bwrap as the server's own user) and resolves once it
 * is set up (mounts done, pid 1 running). Rejects with bwrap's own message when it cannot start.
 */
export function startVmInit(
  tools: BwrapTools,
  hostname: string,
  diskDir: string,
  systemArgs: string[],
  extraArgs: string[],
): Promise<VmInit> {
  const child = spawnHost(tools.bwrap, bwrapArgs(hostname, diskDir, systemArgs, extraArgs), {
    cwd: '/',
    env: { PATH: DEFAULT_PATH },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  return watchInit(child, hostname, child.stdio[INFO_FD] as Readable);
}

/**
 * Follows a spawned sandbox launcher until bwrap reported the VM's pid 1 on `infoStream` and
 * the init said `ready`; the VmInit then stops the VM by killing that pid 1.
 */
export function watchInit(
  child: ChildProcess,
  hostname: string,
  infoStream: Readable,
): Promise<VmInit> {
  let ended = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      ended = true;
      resolve();
    }),
  );

  return new Promise((resolve, reject) => {
    let ready = false;
    let pid: number | undefined;
    let stdout = '';
    let stderr = '';
    let info = '';

    const settle = (): void => {
      if (!ready || pid === undefined) return;
      for (const stream of [child.stdout, child.stderr, infoStream]) {
        stream?.resume();
        (stream as Socket | null)?.unref();
      }
      child.unref();
      const initPid = pid;
      const init: VmInit = {
        pid: initPid,
        hostname,
        alive: () => !ended,
        exited,
        stop: async () => {
          if (ended) return;
          child.ref();
          // Killing pid 1 of a pid namespace kills everything in it; bwrap (its parent)
          // reaps it only after the last of them is gone, then exits itself.
          try {
            process.kill(initPid, 'SIGKILL');
          } catch {
            // It died on its own a moment ago; its exit is on the way.
          }
          await exited;
        },
      };
      resolve(init);
    };

    child.stdout?.on('data', (chunk: Buffer) => {
      if (ready) return;
      stdout += chunk.toString('utf8');
      ready = stdout.includes('ready\n');
      settle();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_MAX) stderr += chunk.toString('utf8');
    });
    infoStream.on('data', (chunk: Buffer) => (info += chunk.toString('utf8')));
    infoStream.on('end', () => {
      pid = childPid(info);
      // Without the pid no command could join: end it, and the exit below reports why.
      if (pid === undefined) child.kill('SIGKILL');
      settle();
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (ready && pid !== undefined) return;
      const why = stderr.trim() || `bwrap ended with ${signal ?? `exit code ${code}`}`;
      reject(new Error(`could not start the sandbox of vm "${hostname}": ${why}`));
    });
  });
}

// bwrap writes `{"child-pid": N, ...}` on the info fd once the sandbox process exists.
function childPid(info: string): number | undefined {
  try {
    const pid: unknown = (JSON.parse(info) as Record<string, unknown>)['child-pid'];
    return typeof pid === 'number' && Number.isInteger(pid) && pid > 1 ? pid : undefined;
  } catch {
    return undefined;
  }
}
