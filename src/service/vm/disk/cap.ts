// A live cap on what a running machine VM's disk may still allocate: ext4's reserved clusters
// (/sys/fs/ext4/<loop device>/reserved_clusters), which the host's root sets and the kernel
// checks at every allocation, VM root included. Why this and not a freeze: a VM over its cap
// gets ENOSPC at once, as on a full disk (its processes go on, `rm` inside frees space, its
// file system stays consistent), nothing hangs in the kernel, and the cap holds between two
// measures however fast the VM writes (the data it has not written out counts already).
import { readFile, readlink, stat, statfs, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';

/** One measure of a mounted VM disk. */
export interface DiskMeasure {
  /** Block size (ext4 here has one block per cluster). */
  blockSize: number;
  /** Blocks of data (ext4's statfs leaves its own metadata out). */
  blocks: number;
  /** Blocks free, less those promised to data not yet written out. */
  freeBlocks: number;
}

/** The cap of one mounted image: its sysfs file and the kernel's own reservation at mount. */
export class DiskCap {
  private written: number;

  private constructor(
    private readonly file: string,
    private readonly kernelDefault: number,
  ) {
    this.written = kernelDefault;
  }

  /** Finds the ext4 sysfs folder of the file system mounted at `mountPath`; null when none. */
  static async open(mountPath: string): Promise<DiskCap | null> {
    const { dev } = await stat(mountPath);
    const device = await readlink(`/sys/dev/block/${major(dev)}:${minor(dev)}`).catch(() => null);
    if (device === null) return null;
    const file = `/sys/fs/ext4/${basename(device)}/reserved_clusters`;
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === null || !/^\d+\n?$/.test(text)) return null;
    return new DiskCap(file, Number(text));
  }

  /**
   * Lets the file system allocate at most `bytes` more (never more than the kernel would
   * anyway: its own reservation stays). Written only when it changes.
   */
  async allow(bytes: number, measure: DiskMeasure): Promise<void> {
    const allowed = Math.floor(bytes / measure.blockSize);
    const reserved = Math.max(this.kernelDefault, measure.freeBlocks - allowed);
    // The kernel refuses a reservation of the whole disk; a full one is as good.
    const value = Math.min(reserved, measure.blocks - 1);
    if (value === this.written) return;
    await writeFile(this.file, String(value));
    this.written = value;
  }

  /** True while the cap is below what the disk itself has free: the VM is being held back. */
  get holding(): boolean {
    return this.written > this.kernelDefault;
  }
}

/** Measures the file system mounted at `mountPath`. */
export async function measureDisk(mountPath: string): Promise<DiskMeasure> {
  const fs = await statfs(mountPath);
  return { blockSize: fs.bsize, blocks: fs.blocks, freeBlocks: fs.bfree };
}

// Linux's dev_t encoding (glibc's gnu_dev_major/minor).
function major(dev: number): number {
  return Number(((BigInt(dev) >> 8n) & 0xfffn) | ((BigInt(dev) >> 32n) & ~0xfffn));
}

function minor(dev: number): number {
  return Number((BigInt(dev) & 0xffn) | ((BigInt(dev) >> 12n) & ~0xffn));
}
