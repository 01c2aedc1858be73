// How many terminal columns text takes, and cutting it to fit: what lets a table fit the
// terminal (SPEC §3 readable text) without the terminal wrapping a line mid-word.

const ELLIPSIS = '…';
const segmenter = new Intl.Segmenter();

/** Marks and joiners that draw nothing of their own: combining marks, ZWJ, variation selectors. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;
const EMOJI = /\p{Extended_Pictographic}/u;

/**
 * East Asian Wide and Fullwidth ranges (Unicode UAX #11), the ones text is made of: Hangul
 * Jamo, CJK radicals to Yi, Hangul syllables, CJK compatibility, vertical and small forms,
 * fullwidth forms, and the CJK extension planes.
 */
function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}

/** Columns one grapheme (a user-perceived character) takes: 0, 1 or 2. */
function graphemeWidth(grapheme: string): number {
  const first = grapheme.codePointAt(0)!;
  if (grapheme.length === 1 && ZERO_WIDTH.test(grapheme)) return 0;
  if (isWide(first)) return 2;
  // An emoji drawn as a picture: one beyond the BMP, or any with the emoji selector U+FE0F.
  if (EMOJI.test(grapheme) && (first > 0xffff || grapheme.includes('\ufe0f'))) return 2;
  return 1;
}

/**
 * Terminal columns `text` takes on one line (no control characters: views escape them first).
 * Wide East Asian characters and emoji count 2, combining marks 0, everything else 1.
 */
export function displayWidth(text: string): number {
  // ASCII, by far the usual case, needs no segmenting.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  let width = 0;
  for (const { segment } of segmenter.segment(text)) width += graphemeWidth(segment);
  return width;
}

/**
 * `text` cut to at most `width` columns, ending in `…` when something was cut; never splits a
 * grapheme (an emoji, a letter with its accent).
 */
export function truncateToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let kept = '';
  let used = 0;
  for (const { segment } of segmenter.segment(text)) {
    const next = graphemeWidth(segment);
    if (used + next > width - 1) break;
    kept += segment;
    used += next;
  }
  return kept + ELLIPSIS;
}

/** `text` padded with spaces to `width` columns. */
export function padToWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

/**
 * The widths of columns whose contents need `natural` columns, so that with `gap` columns
 * between each two the whole fits `total`: the widest are cut first, down to a common cap, the
 * narrow ones stay whole. Unchanged when they fit, or when `total` is undefined (output that is
 * not a terminal). A column keeps at least one column, so a very narrow terminal can still be
 * passed.
 */
export function fitColumns(
  natural: readonly number[],
  gap: number,
  total: number | undefined,
): number[] {
  const available = total === undefined ? Infinity : total - gap * (natural.length - 1);
  const sum = (cap: number) => natural.reduce((s, w) => s + Math.min(w, cap), 0);
  if (sum(Infinity) <= available) return [...natural];
  // The largest cap that fits, found by bisection over 1..widest.
  let low = 1;
  let high = Math.max(...natural);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (sum(mid) <= available) low = mid;
    else high = mid - 1;
  }
  // Columns left of the cut get the columns the cap leaves over, one each.
  let spare = Math.max(0, available - sum(low));
  return natural.map((w) => {
    if (w <= low) return w;
    const extra = spare > 0 && w > low ? 1 : 0;
    spare -= extra;
    return low + extra;
  });
}

/**
 * `text` broken into lines of at most `width` columns at spaces; a word longer than a line is
 * cut with `…` rather than split. One line, unchanged, when `width` is undefined.
 */
export function wrapWords(text: string, width: number | undefined): string[] {
  if (width === undefined || displayWidth(text) <= width) return [text];
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ').filter((w) => w !== '')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (displayWidth(candidate) <= width) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    line = truncateToWidth(word, width);
  }
  if (line !== '') lines.push(line);
  return lines;
}
