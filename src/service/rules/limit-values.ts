// The values of VM limits as people write them: `resize --memory 4G`, `--cpu 0.5`, and the
// operator's `serve --max-vm-*` ceilings, parsed (each caller words its own error) and shown.

const UNITS: Record<string, number> = { '': 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 };
const SIZE = /^([1-9]\d{0,15})([KMGT]?)i?B?$/i;

// Below these a VM cannot do its own work (an ext4 journal alone takes 4 MiB).
export const MIN_MEMORY = 32 * 2 ** 20;
export const MIN_DISK = 64 * 2 ** 20;
export const MAX_CPUS = 1024;
/** The most processes a VM's pids cgroup takes (the kernel's own ceiling, pid_max). */
export const MAX_PIDS = 4_194_304;

/**
 * A size: a whole number with an optional unit K, M, G or T (powers of 1024; `512M`, `4G`,
 * `4GiB`), in bytes; null when it is not one (or not a safe integer).
 */
export function parseSize(text: string): number | null {
  const match = SIZE.exec(text.trim());
  const bytes = match === null ? NaN : Number(match[1]) * UNITS[match[2]!.toUpperCase()]!;
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/** A number of CPUs from 0.01 to {@link MAX_CPUS}, at most two decimals; null otherwise. */
export function parseCpus(text: string): number | null {
  const cpus = /^\d+(\.\d{1,2})?$/.test(text.trim()) ? Number(text) : NaN;
  return cpus >= 0.01 && cpus <= MAX_CPUS ? cpus : null;
}

/** A size exactly, in the largest unit that divides it (`1025M`, `4G`): as a user typed it. */
export function exactBytes(bytes: number): string {
  const units = ['T', 'G', 'M', 'K'];
  for (const [i, unit] of units.entries()) {
    const size = 2 ** (10 * (units.length - i));
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

/** A size for people, rounded down: `512M`, `1.5G` (powers of 1024), as `resize` takes them. */
export function humanBytes(bytes: number): string {
  const units = ['', 'K', 'M', 'G', 'T'];
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = value >= 100 || unit === 0 ? Math.floor(value) : Math.floor(value * 10) / 10;
  return `${shown}${units[unit]}`;
}
