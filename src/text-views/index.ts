// The readable text of every command's answer, by command path: one renderer for the SSH front
// end (without `--json`) and for `exectl run` on a terminal, so both show the same text. Pure
// functions of the JSON answer: nothing here knows the service or the client.
import { COMMAND_CATALOG } from '../command-catalog.js';
import { renderText } from './generic.js';
import type { TextView } from './view.js';

export type { TextView, ViewFlag } from './view.js';
export { helpView } from './help.js';

/** The views by command path, from the command catalogue (each command's `view`). */
const VIEWS: ReadonlyMap<string, TextView> = new Map(
  COMMAND_CATALOG.flatMap((entry) => (entry.view === undefined ? [] : [[entry.path, entry.view]])),
);

/** The view of the command at `path` (`ssh-key list`), or undefined for the generic text. */
export function textViewFor(path: string): TextView | undefined {
  return VIEWS.get(path);
}

/**
 * The readable text of `data`, ending in a newline: `view`'s (with the flags given) or, without
 * one, the generic form; control characters from data escaped (see {@link renderText}). With
 * `width` (a terminal's columns) its tables fit it.
 */
export function readableText(
  data: unknown,
  view: TextView | undefined,
  flags: ReadonlySet<string> = new Set(),
  width?: number,
): string {
  const custom = view === undefined ? undefined : (d: unknown) => view.render(d, flags, width);
  return renderText(data, custom, width);
}
