import { escapeControls } from './escape.js';
import { displayWidth, fitColumns, padToWidth, truncateToWidth } from './width.js';

/** Columns between two cells of a row. */
const GAP = 2;

/**
 * A plain-text table for readable output (command views, `serve accounts list`): a header row
 * in capitals, then one row per record, columns separated by two spaces, trailing spaces
 * trimmed. `empty` is shown instead when there are no rows.
 *
 * With `width` (the terminal's columns) no line is longer: the widest columns are cut with `…`
 * (see {@link fitColumns}), so the terminal never wraps a row mid-word. Without it (output
 * that is not a terminal) nothing is cut. Widths are terminal columns: an emoji or a CJK
 * character takes two. Control characters in cells are escaped first (`\n`), so what is
 * measured is what is shown.
 */
export function textTable(
  headers: readonly string[],
  rows: readonly string[][],
  empty: string,
  width?: number,
): string {
  if (rows.length === 0) return `${empty}\n`;
  return layOut([headers.map((h) => h.toUpperCase()), ...rows], width, '');
}

/**
 * Rows of cells as aligned lines, each ending in a newline and starting with `indent`; the
 * cells cut to fit `width` with the indent. Shared with the generic text of any list.
 */
export function layOut(
  grid: readonly (readonly string[])[],
  width: number | undefined,
  indent: string,
): string {
  const cells = grid.map((row) => row.map((cell) => escapeControls(cell, false)));
  const count = Math.max(...cells.map((row) => row.length));
  const natural = Array.from({ length: count }, (_, col) =>
    Math.max(...cells.map((row) => displayWidth(row[col] ?? ''))),
  );
  const widths = fitColumns(natural, GAP, width === undefined ? undefined : width - indent.length);
  return cells
    .map(
      (row) =>
        indent +
        widths
          .map((w, col) => padToWidth(truncateToWidth(row[col] ?? '', w), w))
          .join(' '.repeat(GAP))
          .trimEnd() +
        '\n',
    )
    .join('');
}

/** A list cell: items joined by commas, `-` for none. */
export function listCell(items: readonly string[]): string {
  return items.length === 0 ? '-' : items.join(',');
}

/** An optional cell: `-` for null or empty. */
export function optionalCell(value: string | number | null): string {
  return value === null || value === '' ? '-' : String(value);
}

/** `key: value` lines with the values aligned, for one record. */
export function textRecord(fields: readonly [label: string, value: string][]): string {
  const width = Math.max(...fields.map(([label]) => label.length));
  return fields.map(([label, value]) => `${`${label}:`.padEnd(width + 1)} ${value}\n`).join('');
}
