// Durations as users type them (`30s`, `15m`, `1h`, `7d`, `2w`, `1y`; `500ms` where a span
// need not be whole seconds) and as exectl prints them. The one parser behind `mint --exp/--nbf`,
// `ssh-key generate-api-key --exp` and `serve --rate-limit`.
import { ExectlError } from './errors.js';

/** Milliseconds per unit; a year is 365 days (no calendar arithmetic in tokens). */
const UNIT_MS = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
  y: 31_536_000_000,
} as const;
type Unit = keyof typeof UNIT_MS;
const UNIT_SECONDS = { m: 60, h: 3600, d: 86_400, y: 31_536_000 } as const;

const DURATION = /^([1-9][0-9]*)(ms|[smhdwy])$/;
const UNIX_TIME = /^[0-9]+$/;

/** The words every refusal of a duration ends with. */
export const DURATION_EXAMPLES = '30s, 15m, 1h, 7d, 2w or 1y';

/** Milliseconds in a duration such as `15m` or `500ms`, or `undefined` when `text` is not one. */
export function parseDurationMs(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (match === null) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as Unit];
}

/** Whole seconds in a duration such as `15m`, or `undefined` when `text` is not one (`500ms`). */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (match === null) return undefined;
  const count = Number(match[1]);
  if (match[2] === 'ms') return count % 1000 === 0 ? count / 1000 : undefined;
  return count * (UNIT_MS[match[2] as Unit] / 1000);
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
      hint: `use e.g. ${DURATION_EXAMPLES}, or a unix time such as 1900000000`,
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
