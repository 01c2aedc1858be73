// The readable text of a command's JSON answer, the same for every front end that shows one:
// the SSH front end without `--json` and `exectl run` on a terminal.
import { escapeControls } from './escape.js';
import { layOut } from './table.js';

/**
 * Readable text of `data`, ending in a newline: its command's own text view when it has one,
 * else a generic form — a table for a list of records (`{"vms":[...]}` prints just the
 * table), `key: value` lines for a record, nested records indented.
 *
 * Control characters coming from data (a VM comment, a key name) could drive the user's
 * terminal, so they are shown escaped (`\n`, `\u001b`); a custom renderer keeps its own
 * newlines and tabs, everything else is escaped the same way.
 */
export function renderText(
  data: unknown,
  custom?: (data: unknown, width: number | undefined) => string,
  width?: number,
): string {
  const text =
    custom === undefined ? genericText(data, width) : escapeControls(custom(data, width), true);
  return text.endsWith('\n') ? text : text + '\n';
}

type Row = Record<string, unknown>;

function genericText(data: unknown, width: number | undefined): string {
  if (isRowList(data) && data.length > 0) return table(data, '', width);
  if (!isRow(data)) return cell(data);
  const entries = Object.entries(data);
  const only = entries.length === 1 ? entries[0] : undefined;
  if (only !== undefined && isRowList(only[1])) {
    return only[1].length === 0
      ? `no ${escapeControls(only[0], false)}\n`
      : table(only[1], '', width);
  }
  return lines(data, '', width);
}

function lines(row: Row, indent: string, width: number | undefined): string {
  return Object.entries(row)
    .map(([key, value]) => {
      const label = `${indent}${escapeControls(key, false)}:`;
      if (isRowList(value) && value.length > 0) {
        return `${label}\n${table(value, indent + '  ', width)}`;
      }
      if (isRow(value)) return `${label}\n${lines(value, indent + '  ', width)}`;
      return `${label} ${cell(value)}\n`;
    })
    .join('');
}

/** Columns are the union of the records' keys in first-seen order, headed in capitals. */
function table(rows: readonly Row[], indent: string, width: number | undefined): string {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const grid = [keys.map((k) => k.toUpperCase()), ...rows.map((r) => keys.map((k) => cell(r[k])))];
  return layOut(grid, width, indent);
}

/** One value on one line: `-` for nothing, lists joined by commas, records as JSON. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') return escapeControls(value, false);
  if (Array.isArray(value) && value.every((v) => !isRow(v) && !Array.isArray(v))) {
    return value.map(cell).join(', ');
  }
  if (typeof value === 'object') return escapeControls(JSON.stringify(value), false);
  return String(value);
}

function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRowList(value: unknown): value is Row[] {
  return Array.isArray(value) && value.every(isRow);
}
