// What a folder's files take on disk, walked without following a symlink, each hard-linked
// file counted once: an unpacked image's size (image-cache.ts).
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Bytes of disk the tree at `root` takes (allocated blocks). */
export async function folderBytes(root: string): Promise<number> {
  const seen = new Set<string>();
  let total = 0;
  const todo = [root];
  while (todo.length > 0) {
    const path = todo.pop()!;
    const st = await lstat(path, { bigint: true });
    const key = `${st.dev}:${st.ino}`;
    if (seen.has(key)) continue;
    seen.add(key);
    total += Number(st.blocks) * 512;
    if (st.isDirectory()) for (const name of await readdir(path)) todo.push(join(path, name));
  }
  return total;
}
