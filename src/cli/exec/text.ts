// The readable text of a JSON answer, for `exectl run` on a terminal (SPEC §8): exactly what
// the SSH front end shows for the same command line, from the same views (src/text-views/).
import { catalogPathOf } from '../../command-catalog.js';
import { lexCommandLine } from '../../shell-words.js';
import { helpView, readableText, textViewFor, type TextView } from '../../text-views/index.js';

/**
 * The text the SSH front end shows for `data`, the answer to `line`: the command's view with
 * the flags it reads (`ls -l`), the help's for a `--help`, the generic form for a failure that
 * carries a result (`failed`, as `rm`'s 422); tables fit `width` (the terminal's columns) when
 * given. Undefined when the line itself asks for JSON
 * (`--json` among the command's flags), as SSH then shows JSON.
 */
export function answerText(
  line: string,
  data: unknown,
  failed: boolean,
  width?: number,
): string | undefined {
  // The server lexed this line and answered, so it lexes; the words are the service's own.
  const words = lexCommandLine(line);
  const path = catalogPathOf(words)?.path;
  const own = ownFlags(path, words);
  if (own.includes('--json')) return undefined;
  if (failed) return readableText(data, undefined, new Set(), width);
  // A JSON answer to `ssh-key --help` (a group, not in the catalogue) is its help too.
  const view = own.includes('--help')
    ? helpView
    : path === undefined
      ? undefined
      : textViewFor(path);
  try {
    return readableText(data, view, view === undefined ? new Set() : given(view, own), width);
  } catch (error) {
    // A view reads its command's answer as this client knows it; a server of another version
    // may answer another shape. Its generic text still shows everything, and nothing crashes.
    if (error instanceof TypeError) return readableText(data, undefined, new Set(), width);
    throw error;
  }
}

/**
 * The words that may be the command's own flags: after its path, up to `--`; for `ssh`, up to
 * the VM, after which every word belongs to the program in the VM.
 */
function ownFlags(path: string | undefined, words: readonly string[]): readonly string[] {
  const own = words.slice(path === undefined ? 1 : path.split(' ').length);
  const end =
    path === 'ssh' ? own.findIndex((w) => !w.startsWith('-') || w === '--') : own.indexOf('--');
  return end < 0 ? own : own.slice(0, end);
}

/** The long names of `view`'s flags among `words` (`--long` or `-l`; short flags never bundle). */
function given(view: TextView, words: readonly string[]): ReadonlySet<string> {
  return new Set(
    view.flags
      .filter((f) => words.includes(`--${f.name}`) || words.includes(`-${f.short}`))
      .map((f) => f.name),
  );
}
