// Asking a person at a terminal to confirm something that cannot be undone (`serve reset`).
import { createInterface } from 'node:readline';
import type { CliContext } from './context.js';

/** Whether stdin is a terminal a person can answer on; elsewhere commands proceed unasked. */
export function canAsk(ctx: CliContext): boolean {
  return ctx.stdin.isTTY === true;
}

/**
 * Shows `question` with ` [y/N] ` on stderr and reads one line from the terminal, which echoes
 * it (cooked mode: Ctrl-C interrupts as anywhere else): true for `y` or `yes` (any case), false
 * for anything else, an empty line or Ctrl-D.
 */
export function confirm(ctx: CliContext, question: string): Promise<boolean> {
  const lines = createInterface({ input: ctx.stdin, terminal: false });
  ctx.stderr.write(`${question} [y/N] `);
  return new Promise((resolve) => {
    let answered = false;
    const finish = (yes: boolean): void => {
      if (answered) return;
      answered = true;
      lines.close();
      ctx.stdin.pause();
      resolve(yes);
    };
    lines.once('line', (answer) => finish(/^y(es)?$/i.test(answer.trim())));
    lines.once('close', () => finish(false));
  });
}
