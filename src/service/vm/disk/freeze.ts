// A running machine VM's file system held still (fsfreeze: written out whole, writers wait)
// while `cp` copies its image. The freeze is held by a process of its own in the mount
// namespace where the image is mounted, which thaws it once the server closes its stdin or
// dies (the pipe closes then too). Why not two calls, one to freeze and one to thaw: the VM may
// stop in between (`rm`, or its init ending), taking that namespace with it, and a frozen file
// system outlives its last mount: nothing could thaw it, and its loop device stayed attached to
// an image `rm` had deleted. The holder, a member of the namespace, keeps it (and the mount)
// until it has thawed.
import { DEFAULT_PATH, spawnHost } from '../process/index.js';
import type { MachineTools } from '../machine/index.js';
import { scriptText } from '../scripts/index.js';

/** A file system held frozen; `thaw` lets its writers go on. */
export interface FrozenDisk {
  /** Thaws the file system; rejects when it could not (with fsfreeze's words). */
  thaw(): Promise<void>;
}

/**
 * Freezes the file system mounted at `mountPoint` in the mount namespace of the process
 * `launcherPid` (a machine VM's launcher); rejects when it cannot.
 */
export function freezeDisk(
  tools: Pick<MachineTools, 'nsenter' | 'fsfreeze'>,
  launcherPid: number,
  mountPoint: string,
): Promise<FrozenDisk> {
  const holder = spawnHost(
    tools.nsenter,
    [
      `--target=${launcherPid}`,
      '--mount',
      '--',
      '/bin/sh',
      '-c',
      scriptText('hold-freeze.sh'),
      'freeze',
      tools.fsfreeze,
      mountPoint,
    ],
    { cwd: '/', env: { PATH: DEFAULT_PATH }, detached: true, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let errors = '';
  holder.stderr.on('data', (chunk: Buffer) => {
    if (errors.length < 4096) errors += chunk.toString('utf8');
  });
  // A holder that ended early makes writes to its stdin fail: its end is what counts.
  holder.stdin.on('error', () => {});
  const ended = new Promise<number | null>((resolve, reject) => {
    holder.once('error', reject);
    holder.once('close', resolve);
  });
  const failure = (what: string, code: number | null) =>
    new Error(`could not ${what} ${mountPoint}: ${errors.trim().split('\n').at(-1) || code}`);
  const thaw = async () => {
    holder.stdin.end();
    const code = await ended;
    if (code !== 0) throw failure('thaw', code);
  };
  return new Promise((resolve, reject) => {
    holder.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString('utf8').startsWith('frozen')) resolve({ thaw });
    });
    ended.then(
      (code) => reject(failure('freeze', code)),
      (err: unknown) => reject(err as Error),
    );
  });
}
