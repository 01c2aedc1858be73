// What the token form's "Expires in" may offer (SPEC §11): only expiries the session can grant
// (a token made here never outlives the session's own token), a default that works, and the
// server's messages about the form in the page's words rather than the CLI's flags.

/** One choice of the select: the value sent as `--exp`, and what the page shows. */
export interface ExpiryChoice {
  value: string;
  label: string;
}

/** The usual lifetimes, shortest first, with their length in seconds (null: no end). */
const PRESETS: readonly [value: string, seconds: number | null][] = [
  ['1h', 3600],
  ['1d', 86_400],
  ['7d', 7 * 86_400],
  ['30d', 30 * 86_400],
  ['1y', 365 * 86_400],
  ['never', null],
];

/** The default when the session allows it (as `generate-api-key`'s own). */
const PREFERRED = '30d';

/** Room for the time between drawing the form and the server reading it. */
const MARGIN_SECONDS = 120;

/**
 * The choices for a session whose token has `secondsLeft` (null: no end), and the one to
 * select: every preset that ends before the session's token does, and, when the longest of
 * them is well short of it (or none fits), one more that lasts until just before it ends.
 */
export function expiryChoices(secondsLeft: number | null): {
  choices: ExpiryChoice[];
  selected: string;
} {
  const fits = PRESETS.filter(
    ([, seconds]) =>
      secondsLeft === null || (seconds !== null && seconds + MARGIN_SECONDS <= secondsLeft),
  );
  const choices: ExpiryChoice[] = fits.map(([value]) => ({ value, label: value }));
  if (secondsLeft !== null) {
    const minutes = Math.floor((secondsLeft - MARGIN_SECONDS) / 60);
    const longest = fits.at(-1)?.[1] ?? 0;
    if (minutes >= 1 && minutes * 60 > longest * 1.5) {
      choices.push({ value: `${minutes}m`, label: `until this session ends (${spoken(minutes)})` });
    }
  }
  const selected = choices.some((c) => c.value === PREFERRED)
    ? PREFERRED
    : (choices.at(-1)?.value ?? '');
  return { choices, selected };
}

/** `90` → `1h 30m`. */
function spoken(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return [h > 0 ? `${h}h` : '', m > 0 || h === 0 ? `${m}m` : ''].filter(Boolean).join(' ');
}

/** The form's fields by the flag the command line gives them. */
const FIELDS: readonly [flag: RegExp, field: string][] = [
  [/--exp\b/g, '"Expires in"'],
  [/--cmds\b/g, '"Commands"'],
  [/--label\b/g, '"Label"'],
];

/**
 * A server message about the token form in the page's words: `use a shorter --exp` becomes
 * `choose a shorter "Expires in"`, each flag the name of its field.
 */
export function formMessage(message: string): string {
  let text = message
    .replace(/use a shorter --exp, or a token that lives longer/, 'choose a shorter "Expires in"')
    .replace(/this request's token/g, 'this session');
  for (const [flag, field] of FIELDS) text = text.replace(flag, field);
  return text;
}
