// Control characters from data (a VM comment, a key name) could drive the user's terminal:
// every readable text shows them as visible escapes.

const NAMED_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** C0 and C1 controls (and DEL) as visible escapes; newline and tab survive when `keepLayout`. */
export function escapeControls(text: string, keepLayout: boolean): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => {
    if (keepLayout && (c === '\n' || c === '\t')) return c;
    return NAMED_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
