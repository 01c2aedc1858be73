// A fresh VM disk without running mkfs for each VM. An empty ext4 file system of a given size
// is the same bytes every time (lazy initialisation keeps it a few hundred KiB of a sparse
// file), so mkfs runs once per size into a scratch image, its written ranges are read once
// (SEEK_DATA/SEEK_HOLE, in perl: Node has no such seek), and each new image is those ranges
// written into a sparse file of that size. Why: a spawn from the server costs 6–15 ms of its
// event loop and mkfs about 15 ms more, on the path from `new` to the VM's first command;
// writing the ranges costs about 1 ms. Every image so made has the template's file system
// UUID: nothing of ours mounts by UUID, and a `cp` of a VM has its original's UUID too.
import { open, rm } from 'node:fs/promises';
import { run } from './image.js';
import { scriptText } from '../scripts/index.js';

/** The tools a template needs. */
export interface TemplateTools {
  mkfs: string;
  perl: string;
}

/** What mkfs wrote: each range's offset and bytes. */
type Extents = readonly { offset: number; data: Buffer }[];

// A host file system without SEEK_DATA reports a whole file as data: then a template would
// write the whole disk. Beyond this, each image gets its own mkfs instead.
const MAX_TEMPLATE_BYTES = 64 * 2 ** 20;

// The arguments mkfs makes every VM disk with (the file system's image path last).
const MKFS_ARGS = [
  '-q',
  '-F',
  '-t',
  'ext4',
  '-m',
  '0',
  // No blocks reserved for growing while mounted: `resize` grows the image stopped, and a
  // fresh 10 GiB disk then costs about 250 KiB of the host's disk instead of 4 MiB.
  '-O',
  '^resize_inode',
  '-E',
  'lazy_itable_init=1,lazy_journal_init=1',
];

/** Empty ext4 images by size, each size formatted once per server. */
export class ImageTemplates {
  private readonly bySize = new Map<number, Promise<Extents | null>>();

  constructor(private readonly tools: TemplateTools) {}

  /**
   * Writes an empty ext4 file system of `sizeBytes` into `image`, which must not exist (0600,
   * synced to disk as mkfs would). `scratch` is a path beside it for the first image of a size.
   */
  async makeImage(image: string, sizeBytes: number, scratch: string): Promise<void> {
    const extents = await this.extentsFor(sizeBytes, scratch);
    if (extents === null) {
      await writeSparse(image, sizeBytes, []);
      await run(this.tools.mkfs, [...MKFS_ARGS, image]);
      return;
    }
    await writeSparse(image, sizeBytes, extents);
  }

  private extentsFor(sizeBytes: number, scratch: string): Promise<Extents | null> {
    let extents = this.bySize.get(sizeBytes);
    if (extents === undefined) {
      extents = this.format(sizeBytes, scratch);
      this.bySize.set(sizeBytes, extents);
      // A failure is not remembered: the next image tries again (and says why).
      extents.catch(() => this.bySize.delete(sizeBytes));
    }
    return extents;
  }

  private async format(sizeBytes: number, scratch: string): Promise<Extents | null> {
    try {
      await rm(scratch, { force: true });
      await writeSparse(scratch, sizeBytes, []);
      await run(this.tools.mkfs, [...MKFS_ARGS, scratch]);
      const ranges = parseExtents(
        await run(this.tools.perl, ['-e', scriptText('image-extents.pl'), scratch]),
      );
      if (ranges === null) return null;
      const handle = await open(scratch, 'r');
      try {
        return await Promise.all(
          ranges.map(async ({ offset, length }) => {
            const data = Buffer.alloc(length);
            await handle.read(data, 0, length, offset);
            return { offset, data };
          }),
        );
      } finally {
        await handle.close();
      }
    } finally {
      await rm(scratch, { force: true });
    }
  }
}

/**
 * The ranges of `perl`'s output ("offset length" lines), or null when they are not those of
 * a sparse file (no SEEK_DATA on this file system: more than {@link MAX_TEMPLATE_BYTES}).
 */
export function parseExtents(text: string): { offset: number; length: number }[] | null {
  const ranges = text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [offset, length] = line.split(' ').map(Number);
      if (
        !Number.isSafeInteger(offset) ||
        offset! < 0 ||
        !Number.isSafeInteger(length) ||
        length! <= 0
      ) {
        throw new Error(`unexpected extent line: ${line}`);
      }
      return { offset: offset!, length: length! };
    });
  const total = ranges.reduce((sum, r) => sum + r.length, 0);
  return total > MAX_TEMPLATE_BYTES ? null : ranges;
}

// A new 0600 file of `sizeBytes`, holes everywhere but `extents`, on disk when this resolves.
async function writeSparse(path: string, sizeBytes: number, extents: Extents): Promise<void> {
  const handle = await open(path, 'wx', 0o600);
  try {
    await handle.truncate(sizeBytes);
    for (const { offset, data } of extents) await handle.write(data, 0, data.length, offset);
    await handle.datasync();
  } catch (err) {
    await handle.close();
    await rm(path, { force: true });
    throw err;
  }
  await handle.close();
}
