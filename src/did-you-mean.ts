// "Did you mean ...?" for a mistyped command name, shared by the service (its /exec and SSH
// front ends answer `unknown command: lss — did you mean "ls"?`) and the client (commander's
// unknown subcommands, and reading the suggestion back out of a 404 to word it for the shell).

/**
 * The largest edit distance still taken for a typo of a word of `length` characters: 1 up to
 * 4 characters, 2 up to 8, then 3. Always below `length`, so that a word is never "corrected"
 * into one that shares nothing with it (`x` is not a typo of `rm`).
 */
export function maxTypoDistance(length: number): number {
  const allowed = length <= 4 ? 1 : length <= 8 ? 2 : 3;
  return Math.min(allowed, length - 1);
}

/**
 * The edit distance between `a` and `b` counting insertions, deletions, substitutions and
 * swaps of two neighbouring characters as one edit each (optimal string alignment), by
 * UTF-16 unit. Command names are short ASCII words; callers cap the input length.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0]!.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]!.push(best);
    }
  }
  return rows[a.length]![b.length]!;
}

/** Longer words are not command names; not comparing them keeps the work bounded. */
const LONGEST_COMPARED = 64;

/**
 * The candidates nearest to `typed`, when they are within {@link maxTypoDistance}: one name
 * usually, several when they tie (in the order of `candidates`), none when nothing is close or
 * when `typed` is itself a candidate (nothing to correct).
 *
 * @example
 * suggestionsFor('lss', ['ls', 'new', 'rm']); // ['ls']
 * suggestionsFor('rn', ['run', 'rm']);         // ['run', 'rm']
 * suggestionsFor('frobnicate', ['ls']);        // []
 */
export function suggestionsFor(typed: string, candidates: readonly string[]): string[] {
  if (typed.length > LONGEST_COMPARED || candidates.includes(typed)) return [];
  let best = maxTypoDistance(typed.length);
  let nearest: string[] = [];
  for (const candidate of new Set(candidates)) {
    if (Math.abs(candidate.length - typed.length) > best) continue;
    const distance = editDistance(typed, candidate);
    if (distance < best) nearest = [];
    if (distance <= best) {
      best = distance;
      nearest.push(candidate);
    }
  }
  return nearest;
}

const SEPARATOR = ' — did you mean ';

/**
 * `message` followed by the suggestion, as the service words it after SPEC §2's message
 * (which stays a prefix): `unknown command: lss — did you mean "ls"?`; `message` alone when
 * there is none.
 */
export function withSuggestions(message: string, suggestions: readonly string[]): string {
  if (suggestions.length === 0) return message;
  return `${message}${SEPARATOR}${suggestions.map((s) => `"${s}"`).join(' or ')}?`;
}

/**
 * The inverse of {@link withSuggestions}: the message before the suggestion and the names
 * suggested (empty when the message carries none), so the client can word them as commands
 * of its own (`exectl run ls`).
 */
export function splitSuggestions(text: string): { message: string; suggestions: string[] } {
  const at = text.lastIndexOf(SEPARATOR);
  const tail = at < 0 ? '' : text.slice(at + SEPARATOR.length);
  if (!/^"[^"]+"( or "[^"]+")*\?$/.test(tail)) return { message: text, suggestions: [] };
  const suggestions = [...tail.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
  return { message: text.slice(0, at), suggestions };
}
