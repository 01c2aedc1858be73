// Rendering shared by commands: colours on a TTY only, plain stable text for pipes, and the
// one-line stderr format (`exectl: ...`) that errors and warnings share.
import type { CliContext } from './context.js';

/** The few ways output is emphasised; every function is the identity when colours are off. */
export interface Style {
  label(text: string): string;
  good(text: string): string;
  bad(text: string): string;
  warn(text: string): string;
}

const plain = (text: string): string => text;
export const PLAIN_STYLE: Style = { label: plain, good: plain, bad: plain, warn: plain };

/** The style for `ctx`; chalk is imported only when colours are actually on. */
export async function styleFor(ctx: CliContext): Promise<Style> {
  if (!ctx.color) return PLAIN_STYLE;
  const { Chalk } = await import('chalk');
  // ctx.color already decided that stdout is a colour TTY; basic ANSI colours are enough.
  const chalk = new Chalk({ level: 1 });
  return { label: chalk.dim, good: chalk.green, bad: chalk.red, warn: chalk.yellow };
}

/**
 * `text` reduced to one line: a message built from outside input (a file, a server) must
 * never break the one-line stderr format.
 */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/**
 * `text` safe to print on a terminal: control characters (C0, DEL, C1) and bidirectional
 * overrides, which a token may carry inside JSON strings, are shown as `\uXXXX`.
 */
export function printable(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Writes `exectl: warning: <message>` to stderr unless `-q` was given. */
export function warn(ctx: CliContext, message: string): void {
  if (!ctx.quiet) ctx.stderr.write(`exectl: warning: ${oneLine(message)}\n`);
}
