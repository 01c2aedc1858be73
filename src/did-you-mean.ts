// "Did you mean ...?" for a mistyped command name, shared by the service (its 404 carries the
// nearest paths in a header; the SSH front end shows `unknown command: lss — did you mean "ls"?`)
// and the client (commander's unknown subcommands, and the header of a 404 worded for the shell).

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

/**
 * The response header of a 404 that carries the nearest command paths, comma-separated
 * (`X-Exec-Suggest: ssh-key list, rm`). SPEC §2's message stays exactly `unknown command:
 * <name>`; front ends that talk to people word the suggestion from this header (see
 * {@link withSuggestions}, and the client's `cli/exec/answer.ts`). Other clients may ignore it.
 */
export const SUGGESTIONS_HEADER = 'X-Exec-Suggest';

/** One suggested path as a header carries it: printable ASCII words, no comma or quote. */
const SUGGESTED_PATH = /^[\x21-\x7e]+( [\x21-\x7e]+)*$/;
const sendable = (path: string): boolean => SUGGESTED_PATH.test(path) && !/[,"]/.test(path);

/**
 * The headers that carry `suggestions` ({@link SUGGESTIONS_HEADER}); none when there is none.
 * A name a header cannot hold (never a command path) is left out rather than sent.
 */
export function suggestionsHeader(suggestions: readonly string[]): Record<string, string> {
  const paths = suggestions.filter(sendable);
  return paths.length === 0 ? {} : { [SUGGESTIONS_HEADER]: paths.join(', ') };
}

/** Reads {@link SUGGESTIONS_HEADER} back: the paths it names, none when missing or malformed. */
export function parseSuggestions(value: string | undefined): string[] {
  if (value === undefined) return [];
  const paths = value.split(',').map((path) => path.trim());
  return paths.every(sendable) ? paths : [];
}

/**
 * `message` followed by the suggestion, as a front end that talks to people shows it (the SSH
 * one): `unknown command: lss — did you mean "ls"?`; `message` alone when there is none.
 */
export function withSuggestions(message: string, suggestions: readonly string[]): string {
  if (suggestions.length === 0) return message;
  return `${message} — did you mean ${suggestions.map((s) => `"${s}"`).join(' or ')}?`;
}
