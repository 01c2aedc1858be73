// Keeps the data folder's free space above its floor (SPEC §7): measures the folder's file
// system and every running machine VM's disk a few times a second, caps what each VM may still
// write (disk/budget.ts, disk/cap.ts), and answers whether `new`, `cp` and `resize --disk` fit.
import { stat, statfs } from 'node:fs/promises';
import { commandFailed } from '../../../errors.js';
import { allowances, diskFloor, footprint, netFree, type VmDiskUse } from './budget.js';
import { humanBytes } from '../../rules/limit-values.js';
import { DiskCap, measureDisk, type DiskMeasure } from './cap.js';

/** A running machine VM's disk, as the runtime reports it. */
export interface MountedDisk {
  /** Its disk folder, resolved: the VM's identity in the runtime. */
  readonly key: string;
  /** Where its file system can be read from the host (through its launcher's /proc root). */
  readonly mountPath: string;
  /** Its image file on the host. */
  readonly image: string;
}

/** Often enough that a VM's cap follows the free space; each measure is a few statfs calls. */
const INTERVAL_MS = 200;

interface Tracked {
  /** The mount it was opened for: a VM booted again has another (and maybe another device). */
  mountPath: string;
  cap: DiskCap | null;
  baseBytes: number;
}

export class DiskWatchdog {
  private readonly tracked = new Map<string, Tracked>();
  private readonly timer: NodeJS.Timeout;
  private measuring: Promise<void> | undefined;
  private lastFree = Infinity;
  private lastFloor = 0;
  /** Bytes promised to writes under way (copies) and not yet measured as used. */
  private heldBytes = 0;
  /** The warnings said already, by kind: each kind once, so none hides another. */
  private readonly warned = new Set<string>();

  /**
   * Starts measuring `dataDir` every {@link INTERVAL_MS}. `floorBytes` overrides the floor
   * (tests); `log` hears once that caps cannot be set on this host.
   */
  constructor(
    private readonly dataDir: string,
    private readonly disks: () => Promise<readonly MountedDisk[]>,
    private readonly log: (line: string) => void,
    private readonly floorBytes?: number,
  ) {
    this.timer = setInterval(() => void this.measure(), INTERVAL_MS);
    this.timer.unref();
  }

  /** Measures now (or joins the measure under way); never rejects. */
  measure(): Promise<void> {
    this.measuring ??= this.measureOnce()
      .catch((err: unknown) => this.warnOnce('measure', `disk watchdog: ${String(err)}`))
      .finally(() => (this.measuring = undefined));
    return this.measuring;
  }

  /**
   * Throws a 422 when `needBytes` more would leave the data folder under its floor, naming
   * what is free. `what` names the refused action. Else the bytes are held for the caller
   * until it calls the release returned (when its writes are done, or failed): two copies
   * checked at once cannot both take the same free space, nor can running VMs.
   */
  async assertRoom(what: string, needBytes = 0): Promise<() => void> {
    await this.measure();
    const { free: measured, floor } = await this.room();
    // No await from here to the hold: the check and the hold are one step.
    const free = measured - this.heldBytes;
    if (free - needBytes >= floor) {
      this.heldBytes += needBytes;
      let held = true;
      return () => {
        if (held) this.heldBytes -= needBytes;
        held = false;
      };
    }
    const need = needBytes > 0 ? ` (it needs ${humanBytes(needBytes)})` : '';
    throw commandFailed(
      `cannot ${what}: the server's disk has ${humanBytes(free)} free, under its floor of ${humanBytes(floor)}${need}`,
      // Files deleted inside a VM free room in that VM only: its image keeps its size.
      { hint: 'remove VMs you no longer need (rm), or ask the operator for space' },
    );
  }

  /** Why the VM's writes are held back (under the floor), or null when they are not. */
  note(key: string): string | null {
    if (this.lastFree >= this.lastFloor || this.tracked.get(key)?.cap?.holding !== true)
      return null;
    return `writes limited: the server's disk has ${humanBytes(this.lastFree)} free, under its floor of ${humanBytes(this.lastFloor)}`;
  }

  /** Stops measuring (server exit). Caps end with each VM's mount. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.measuring;
  }

  // The floor and the net free space (less what VMs hold but have not written out).
  private async room(): Promise<{ free: number; floor: number }> {
    const fs = await statfs(this.dataDir);
    const floor = this.floorBytes ?? diskFloor(fs.blocks * fs.bsize);
    return { free: Math.min(fs.bavail * fs.bsize, this.lastFree), floor };
  }

  private async measureOnce(): Promise<void> {
    const disks = await this.disks();
    const seen = await Promise.all(disks.map((disk) => this.measureVm(disk)));
    for (const key of this.tracked.keys()) {
      if (!disks.some((disk) => disk.key === key)) this.tracked.delete(key);
    }
    const fs = await statfs(this.dataDir);
    const floor = this.floorBytes ?? diskFloor(fs.blocks * fs.bsize);
    const live = seen.filter((vm) => vm !== null);
    const free = netFree(fs.bavail * fs.bsize, live);
    this.lastFree = free;
    this.lastFloor = floor;
    if (free >= floor) for (const vm of live) vm.tracked.baseBytes = footprint(vm);
    const allowed = allowances(free - this.heldBytes, floor, live);
    await Promise.all(
      live.map(async (vm, i) =>
        vm.tracked.cap
          ?.allow(allowed[i]!, vm.measure)
          .catch((err: unknown) =>
            this.warnOnce('cap', `cannot cap the disk at ${vm.tracked.mountPath}: ${String(err)}`),
          ),
      ),
    );
  }

  private async measureVm(
    disk: MountedDisk,
  ): Promise<(VmDiskUse & { tracked: Tracked; measure: DiskMeasure }) | null> {
    try {
      const [measure, image] = await Promise.all([measureDisk(disk.mountPath), stat(disk.image)]);
      let tracked = this.tracked.get(disk.key);
      const usedBytes = (measure.blocks - measure.freeBlocks) * measure.blockSize;
      const allocatedBytes = image.blocks * 512;
      if (tracked?.mountPath !== disk.mountPath) {
        const cap = await DiskCap.open(disk.mountPath);
        if (cap === null)
          this.warnOnce('no-cap', 'cannot cap VM disks here (no ext4 reserved_clusters)');
        tracked = {
          mountPath: disk.mountPath,
          cap,
          baseBytes: Math.max(usedBytes, allocatedBytes),
        };
        this.tracked.set(disk.key, tracked);
      }
      return { usedBytes, allocatedBytes, baseBytes: tracked.baseBytes, tracked, measure };
    } catch {
      // Stopped between the list and the measure: it writes nothing more.
      return null;
    }
  }

  private warnOnce(kind: string, line: string): void {
    if (this.warned.has(kind)) return;
    this.warned.add(kind);
    this.log(line);
  }
}
