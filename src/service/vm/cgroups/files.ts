// Reading and writing cgroup files, shared by both backends.
import { access, mkdir, readFile, readdir, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The text of a cgroup file, or '' when it cannot be read. */
export function readText(dir: string, file: string): Promise<string> {
  return readFile(join(dir, file), 'utf8').catch(() => '');
}

/** The number a cgroup file holds, or null when it holds none. */
export async function readNumber(dir: string, file: string): Promise<number | null> {
  const text = (await readText(dir, file)).trim();
  return text === '' || !Number.isFinite(Number(text)) ? null : Number(text);
}

/** The pids of a `cgroup.procs` file. */
export async function readPids(dir: string): Promise<number[]> {
  return (await readText(dir, 'cgroup.procs')).split('\n').filter(Boolean).map(Number);
}

/** `max` for no limit, else the number. */
export function limitText(value: number | null): string {
  return value === null ? 'max' : String(value);
}

export async function fileExists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Whether `dir` can be made (or exists): false for a server that is not root. */
export async function makeable(dir: string): Promise<boolean> {
  try {
    await mkdir(dir, { recursive: true });
    return true;
  } catch {
    return false;
  }
}

export function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

/** Removes a cgroup folder and the folders under it (a cgroup's files go with its folder). */
export async function removeTree(dir: string): Promise<void> {
  const children = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const child of children) if (child.isDirectory()) await removeTree(join(dir, child.name));
  for (let i = 0; i < 50; i++) {
    try {
      await rmdir(dir);
      return;
    } catch (err) {
      if (errnoOf(err) === 'ENOENT') return;
      // EBUSY: the last processes are still exiting. ENOTEMPTY: a fake cgroup's regular
      // files (tests); a real cgroup folder holds only its kernel files, which go with it.
      if (errnoOf(err) === 'ENOTEMPTY') return rm(dir, { recursive: true, force: true });
      await sleep(10);
    }
  }
}
