/**
 * A plain-text table for readable output (command views, `serve accounts list`): a header row
 * in capitals, then one row per record, columns separated by two spaces, trailing spaces
 * trimmed. `empty` is shown instead when there are no rows. Widths count UTF-16 units, which matches the terminal for the emojis VMs get
 * (one astral character, two units, two columns wide).
 */
export function textTable(headers: readonly string[], rows: readonly string[][], empty: string) {
  if (rows.length === 0) return `${empty}\n`;
  const grid = [headers.map((h) => h.toUpperCase()), ...rows];
  const widths = headers.map((_, col) => Math.max(...grid.map((row) => (row[col] ?? '').length)));
  return grid
    .map((row) =>
      widths
        .map((width, col) => (row[col] ?? '').padEnd(width))
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
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
