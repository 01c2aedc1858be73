// Asking for a key's passphrase (SPEC §1.4): EXECTL_PASSPHRASE, else a no-echo prompt on the
// terminal, else nothing (the key loader then names both ways in its error).
import { ExectlError } from '../errors.js';
import type { CliContext } from './context.js';

const ENTER = new Set(['\r', '\n']);
const BACKSPACE = new Set(['\x7f', '\b']);
const CTRL_C = '\x03';
const CTRL_D = '\x04';

/** A passphrase callback for the key loader, bound to `ctx`. */
export function passphraseSource(ctx: CliContext): () => Promise<string | undefined> {
  return async () => {
    const fromEnv = ctx.env.EXECTL_PASSPHRASE;
    if (fromEnv !== undefined) return fromEnv;
    if (ctx.stdin.isTTY !== true || ctx.stdin.setRawMode === undefined) return undefined;
    return readHidden(ctx, 'exectl: passphrase for the SSH key: ');
  };
}

/**
 * Reads one line from the TTY on stdin in raw mode, so nothing typed is echoed; the prompt
 * goes to stderr to keep stdout for the result. Ctrl-C cancels; Ctrl-D on an empty line gives
 * `undefined` (no passphrase).
 */
function readHidden(ctx: CliContext, prompt: string): Promise<string | undefined> {
  const { stdin, stderr } = ctx;
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (outcome: () => void): void => {
      stdin.off('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      stderr.write('\n');
      outcome();
    };
    const onData = (chunk: Buffer | string): void => {
      for (const char of chunk.toString()) {
        if (ENTER.has(char)) return finish(() => resolve(typed));
        if (char === CTRL_C) {
          return finish(() => reject(new ExectlError('usage', 'passphrase prompt cancelled')));
        }
        if (char === CTRL_D && typed === '') return finish(() => resolve(undefined));
        if (BACKSPACE.has(char)) typed = Array.from(typed).slice(0, -1).join('');
        else if (char >= ' ') typed += char;
      }
    };
    // Raw mode before the prompt: keys typed as soon as it shows must not be echoed.
    stdin.setRawMode?.(true);
    stderr.write(prompt);
    stdin.on('data', onData);
    stdin.resume();
  });
}
