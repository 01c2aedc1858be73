// JSON for a person at a terminal: indented like JSON.stringify(v, null, 2) and coloured like
// jq, re-laid token by token so every number and string keeps the exact text the server sent.
import type { CliContext } from './context.js';
import { printable } from './output.js';

/** Colours of the JSON token kinds; the identity everywhere when colours are off. */
export interface JsonStyle {
  key(text: string): string;
  string(text: string): string;
  number(text: string): string;
  literal(text: string): string;
}

const plain = (text: string): string => text;
const PLAIN_JSON_STYLE: JsonStyle = {
  key: plain,
  string: plain,
  number: plain,
  literal: plain,
};

/** The JSON style for `ctx`; chalk is loaded only when colours are on. */
export async function jsonStyleFor(ctx: CliContext): Promise<JsonStyle> {
  if (!ctx.color) return PLAIN_JSON_STYLE;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return { key: chalk.blue, string: chalk.green, number: chalk.yellow, literal: chalk.magenta };
}

/** One JSON token: a string, a number or literal, or a structural character. */
const TOKEN = /"(?:[^"\\]|\\.)*"|[-+0-9.eE]+|true|false|null|[{}[\]:,]/gy;

/**
 * `text` (one JSON document, possibly followed by a newline) indented by two spaces per level,
 * with a final newline; undefined when `text` is not valid JSON. Strings are made safe for a
 * terminal (control and bidi characters shown as `\uXXXX`, which keeps the JSON valid).
 */
export function prettyJson(text: string, style: JsonStyle = PLAIN_JSON_STYLE): string | undefined {
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  const tokens = tokenize(text);
  let out = '';
  let depth = 0;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const next = tokens[i + 1];
    if (token === '{' || token === '[') {
      const empty = next === (token === '{' ? '}' : ']');
      if (empty) {
        out += token + next;
        i += 1;
      } else {
        depth += 1;
        out += token + newline();
      }
    } else if (token === '}' || token === ']') {
      depth -= 1;
      out += newline() + token;
    } else if (token === ',') {
      out += `,${newline()}`;
    } else if (token === ':') {
      out += ': ';
    } else if (token.startsWith('"')) {
      out += (next === ':' ? style.key : style.string)(printable(token));
    } else if (token === 'true' || token === 'false' || token === 'null') {
      out += style.literal(token);
    } else {
      out += style.number(token);
    }
  }
  return `${out}\n`;
}

/** The tokens of valid JSON text; whitespace between them is dropped. */
function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i += 1;
      continue;
    }
    TOKEN.lastIndex = i;
    const match = TOKEN.exec(text);
    // JSON.parse accepted the text, so every non-space position starts a token.
    const token = match![0];
    tokens.push(token);
    i += token.length;
  }
  return tokens;
}
