// The "Exit codes" lines of the help texts (`exectl --help`, `exectl run --help`), made from the
// error catalogue so that they never drift from the codes main.ts exits with.
import { exitCodeMeanings } from '../errors.js';

/** `first` (what 0 means) and every catalogue exit code, wrapped into indented lines. */
export function exitCodesHelp(first: string): string {
  return wrapList([first, ...exitCodeMeanings()]);
}

/** Items joined with ", " into lines of at most 80 columns, indented by two spaces. */
function wrapList(items: readonly string[]): string {
  const lines: string[] = [];
  let line = '';
  items.forEach((item, i) => {
    const piece = i === items.length - 1 ? item : `${item},`;
    if (line !== '' && 2 + line.length + 1 + piece.length > 80) {
      lines.push(line);
      line = piece;
    } else {
      line = line === '' ? piece : `${line} ${piece}`;
    }
  });
  return [...lines, line].map((l) => `  ${l}`).join('\n');
}
