// Durations as users type them (`30s`, `15m`, `1h`, `7d`, `2w`, `1y`) and as the CLI prints them.
import { ExectlError } from '../errors.js';

/** Seconds per unit; a year is 365 days (no calendar arithmetic in tokens). */
const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800, y: 31_536_000 } as const;
type Unit = keyof typeof UNIT_SECONDS;

const DURATION = /^([1-9][0-9]*)([smhdwy])$/;
const UNIX_TIME = /^[0-9]+$/;

/** Seconds in a duration such as `15m`, or `undefined` when `text` is not one. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (match === null) return undefined;
  return Number(match[1]) * UNIT_SECONDS[match[2] as Unit];
}

/**
 * The unix time a `--exp`/`--nbf` value names: a duration counts from `nowSeconds`, a plain
 * integer is taken as an absolute unix time. Range rules are the token library's (§1.3 rule 7).
 */
export function parseTimeFlag(flag: string, text: string, nowSeconds: number): number {
  const duration = parseDuration(text);
  const seconds = duration === undefined ? unixTime(text) : nowSeconds + duration;
  if (seconds === undefined) {
    throw new ExectlError('usage', `${flag} "${text}" is neither a duration nor a unix time`, {
      hint: 'use e.g. 30s, 15m, 1h, 7d, 2w, 1y or a unix time such as 1900000000',
    });
  }
  if (!Number.isSafeInteger(seconds)) {
    throw new ExectlError('usage', `${flag} "${text}" is too far in the future`, {
      hint: 'tokens may not outlive the year 2100',
    });
  }
  return seconds;
}

/** A span as its largest whole unit, rounded down: `45s`, `59m`, `3h`, `6d`, `2y`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < UNIT_SECONDS.m) return `${s}s`;
  if (s < UNIT_SECONDS.h) return `${Math.floor(s / UNIT_SECONDS.m)}m`;
  if (s < UNIT_SECONDS.d) return `${Math.floor(s / UNIT_SECONDS.h)}h`;
  if (s < UNIT_SECONDS.y) return `${Math.floor(s / UNIT_SECONDS.d)}d`;
  return `${Math.floor(s / UNIT_SECONDS.y)}y`;
}

function unixTime(text: string): number | undefined {
  return UNIX_TIME.test(text) ? Number(text) : undefined;
}
