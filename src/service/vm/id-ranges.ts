// Private id ranges for VMs (SPEC §4): each VM's ids 0–65535 map to 65536 host ids that no
// other VM, on any data folder of this host, and no real host user has.
//
// The claims are files in one host-wide folder, one per slot, each naming the disk folder that
// holds the slot; the VM's disk folder records its base too, so a VM keeps its range across
// restarts. Several servers may claim at once: see claim().
import { open, readdir, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Ids per VM: the whole range 0–65535 inside. */
export const IDS_PER_VM = 65536;
/** The first host id ever handed out: far above the ids distributions give to users. */
const FIRST_BASE = 0x10000000;
const SLOTS = Math.floor((2 ** 32 - 1 - FIRST_BASE) / IDS_PER_VM);
/**
 * The ids of the VMs' network helpers (network/slirp4netns.ts): one per slot, just below the
 * first VM range, so a helper's id is in no VM's range and signals or traces no other VM's.
 */
const FIRST_HELPER_ID = FIRST_BASE - IDS_PER_VM;
/** Where the claims live. */
export const DEFAULT_REGISTRY = '/var/lib/exectl/id-ranges';
/** The file in a VM's disk folder that records its range: a VM's own, never copied. */
export const RANGE_RECORD = 'id-range';
const LOCK_STALE_MS = 10_000;

/** The host ids that a range must never include: users, groups and delegated subordinate ids. */
export async function takenHostIds(): Promise<Array<[number, number]>> {
  const ranges: Array<[number, number]> = [];
  for (const file of ['/etc/passwd', '/etc/group']) {
    for (const line of (await readText(file)).split('\n')) {
      const id = Number(line.split(':')[2]);
      if (line !== '' && Number.isInteger(id)) ranges.push([id, id + 1]);
    }
  }
  for (const file of ['/etc/subuid', '/etc/subgid']) {
    for (const line of (await readText(file)).split('\n')) {
      const [, start, count] = line.split(':').map(Number);
      if (Number.isInteger(start) && Number.isInteger(count))
        ranges.push([start!, start! + count!]);
    }
  }
  return ranges;
}

/** The host id that is root in the VM whose disk is `diskDir`; claims a free range on first use. */
export async function idBaseOf(diskDir: string, registry = DEFAULT_REGISTRY): Promise<number> {
  const recorded = Number((await readText(join(diskDir, RANGE_RECORD))).trim());
  if (Number.isInteger(recorded) && recorded >= FIRST_BASE) {
    await reclaim(registry, slotOf(recorded), resolve(diskDir));
    return recorded;
  }
  const base = await claim(registry, resolve(diskDir));
  await writeFile(join(diskDir, RANGE_RECORD), `${base}\n`, { mode: 0o600 });
  return base;
}

/** Gives the range of a removed VM back; false when the VM held none. */
export async function releaseIdRange(
  diskDir: string,
  registry = DEFAULT_REGISTRY,
): Promise<boolean> {
  const recorded = Number((await readText(join(diskDir, RANGE_RECORD))).trim());
  if (!Number.isInteger(recorded) || recorded < FIRST_BASE) return false;
  const file = join(registry, String(slotOf(recorded)));
  if ((await readText(file)) !== resolve(diskDir)) return false;
  await rm(file, { force: true });
  return true;
}

/**
 * Gives back the ranges of the VMs of the data folder `dataDir` (their disks are in
 * `<data>/vms/<id>`, as machines.ts puts them), before `serve reset` deletes them; a claim
 * another folder holds is left alone. How many it gave back.
 */
export async function releaseVmIdRanges(
  dataDir: string,
  registry = DEFAULT_REGISTRY,
): Promise<number> {
  const vmsDir = join(dataDir, 'vms');
  const folders = await readdir(vmsDir, { withFileTypes: true }).catch(() => []);
  let released = 0;
  for (const folder of folders.filter((f) => f.isDirectory())) {
    if (await releaseIdRange(join(vmsDir, folder.name), registry)) released++;
  }
  return released;
}

/** The host id the network helper of the VM whose range starts at `base` runs as. */
export function networkHelperId(base: number): number {
  return FIRST_HELPER_ID + slotOf(base);
}

/**
 * Every host id exectl hands out, first and last (inclusive): the network helpers' ids, then
 * every VM range. The host's network wall (network/host-wall.ts) is keyed on them.
 */
export const EXECTL_IDS: readonly [number, number] = [
  FIRST_HELPER_ID,
  FIRST_BASE + SLOTS * IDS_PER_VM - 1,
];

function slotOf(base: number): number {
  return (base - FIRST_BASE) / IDS_PER_VM;
}

// The fast path needs no lock: a claim file is made with O_EXCL, so two servers can never take
// the same free slot. Only when no slot is free are the claims of VMs whose disk folder is gone
// (a data folder deleted without `rm`) taken back, under the lock.
async function claim(registry: string, owner: string): Promise<number> {
  await mkdir(registry, { recursive: true, mode: 0o700 });
  const taken = await takenHostIds();
  const usable = (slot: number) => {
    const base = FIRST_BASE + slot * IDS_PER_VM;
    return !taken.some(([a, b]) => a < base + IDS_PER_VM && b > base);
  };
  const existing = new Set((await readdir(registry)).filter((n) => /^\d+$/.test(n)).map(Number));
  for (let slot = 0; slot < SLOTS; slot++) {
    if (existing.has(slot) || !usable(slot)) continue;
    if (await createClaim(join(registry, String(slot)), owner))
      return FIRST_BASE + slot * IDS_PER_VM;
  }
  return withLock(registry, async () => {
    for (let slot = 0; slot < SLOTS; slot++) {
      const holder = await readText(join(registry, String(slot)));
      if (!usable(slot) || (holder !== '' && (await exists(holder)))) continue;
      await writeFile(join(registry, String(slot)), owner, { mode: 0o600 });
      return FIRST_BASE + slot * IDS_PER_VM;
    }
    throw new Error('no free id range is left for a new VM');
  });
}

/** Makes the claim file; false when another server made it first. */
async function createClaim(file: string, owner: string): Promise<boolean> {
  try {
    await writeFile(file, owner, { mode: 0o600, flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

// A recorded range whose claim file went missing (the registry was wiped) is claimed again,
// unless another VM took the slot meanwhile: then the VM cannot start with its files' owners.
async function reclaim(registry: string, slot: number, owner: string): Promise<void> {
  const file = join(registry, String(slot));
  if ((await readText(file)) === owner) return;
  await withLock(registry, async () => {
    const holder = await readText(file);
    if (holder !== '' && holder !== owner && (await exists(holder))) {
      throw new Error(`the id range of this VM is held by ${holder}`);
    }
    await writeFile(file, owner, { mode: 0o600 });
  });
}

async function withLock<T>(registry: string, work: () => Promise<T>): Promise<T> {
  await mkdir(registry, { recursive: true, mode: 0o700 });
  const lock = join(registry, 'lock');
  for (;;) {
    try {
      const handle = await open(lock, 'wx', 0o600);
      await handle.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // A server killed while holding it leaves the file behind: break it once it is old.
      const age = Date.now() - ((await stat(lock).catch(() => undefined))?.mtimeMs ?? Date.now());
      if (age > LOCK_STALE_MS) await rm(lock, { force: true });
      else await sleep(5);
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { force: true });
  }
}

async function readText(path: string): Promise<string> {
  return readFile(path, 'utf8').catch(() => '');
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
