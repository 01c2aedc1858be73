// Quoting for the service's command-line lexer and, for `ssh`, for the VM's `/bin/sh -c` too.
import { quoteForShell } from '../shell-words.js';

/** `words` as one command line that the service's lexer splits back into `words`. */
export function joinWords(words: readonly string[]): string {
  return words.map(quoteForShell).join(' ');
}

/**
 * The `/exec` command line that runs `argv` in VM `vm`. The service lexes the line, then joins
 * the words after `ssh <vm> --` with spaces and hands them to `/bin/sh -c` (SPEC §4): so each
 * word is quoted for sh first, and that text quoted again for the service's lexer. The `--`
 * keeps a first word such as `--help` from being read as a flag of `ssh` itself.
 */
export function remoteCommandLine(vm: string, argv: readonly string[]): string {
  const forSh = argv.map(quoteForShell);
  return ['ssh', quoteForShell(vm), '--', ...forSh.map(quoteForShell)].join(' ');
}
