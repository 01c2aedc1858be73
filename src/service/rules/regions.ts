// The regions an account may choose with `set-region` (SPEC §3): the real service's public
// codes, so a client that sets one works unchanged, and `local`, this emulator's own. Nothing
// moves: every VM runs on this machine whatever its region says.

/** One region: its code and how it is shown. */
export interface Region {
  code: string;
  display: string;
}

/** `local` first: every account's region until it chooses another. */
export const REGIONS: readonly Region[] = [
  { code: 'local', display: 'Local' },
  { code: 'pdx', display: 'Oregon, USA' },
  { code: 'lax', display: 'Los Angeles, USA' },
  { code: 'nyc', display: 'New York, USA' },
  { code: 'dal', display: 'Dallas, USA' },
  { code: 'fra', display: 'Frankfurt, Germany' },
  { code: 'tyo', display: 'Tokyo, Japan' },
  { code: 'syd', display: 'Sydney, Australia' },
  { code: 'sgp', display: 'Singapore' },
  { code: 'lon', display: 'London, UK' },
];

/** The region of `code` (any case), or undefined. */
export function findRegion(code: string): Region | undefined {
  const lower = code.toLowerCase();
  return REGIONS.find((r) => r.code === lower);
}

/** How `code` is shown; a code no longer listed is shown as itself. */
export function regionDisplay(code: string): string {
  return findRegion(code)?.display ?? code;
}
