// Quoting words for the service's command-line lexer (SPEC §2: POSIX word splitting, no
// expansion) and, for `ssh`, for the VM's `/bin/sh -c` too. The client has its own copy on
// purpose: the cli room never imports the service (ARCHITECTURE.md).

/**
 * Words made only of these characters read back the same unquoted, in the service's lexer and
 * in sh. `=` is left out: a bare `A=b` in command position is an assignment to sh.
 */
const BARE_WORD = /^[A-Za-z0-9_@%+:,./-]+$/;

/**
 * One word quoted so that a POSIX word splitter (the service's lexer, or sh) gives exactly
 * `word` back: bare when it is made of safe characters, otherwise inside single quotes, where
 * nothing is special, with each `'` written as `'\''` (close, escaped quote, reopen). The empty
 * word is `''`.
 */
export function quoteWord(word: string): string {
  if (BARE_WORD.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `words` as one command line that the service's lexer splits back into `words`. */
export function joinWords(words: readonly string[]): string {
  return words.map(quoteWord).join(' ');
}

/**
 * The `/exec` command line that runs `argv` in VM `vm`. The service lexes the line, then joins
 * the words after `ssh <vm> --` with spaces and hands them to `/bin/sh -c` (SPEC §4): so each
 * word is quoted for sh first, and that text quoted again for the service's lexer. The `--`
 * keeps a first word such as `--help` from being read as a flag of `ssh` itself.
 */
export function remoteCommandLine(vm: string, argv: readonly string[]): string {
  const forSh = argv.map(quoteWord);
  return ['ssh', quoteWord(vm), '--', ...forSh.map(quoteWord)].join(' ');
}
