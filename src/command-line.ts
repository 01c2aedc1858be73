// What a client sends to /exec (`exectl run`, `exectl ssh`, the library's Client), and what it
// must know about it before sending: the command path (to mint a token for exactly that
// command) and whether it may be repeated after a connection failure. The service's catalogue
// (src/command-catalog.ts) answers both.
import { catalogPathOf, COMMAND_CATALOG } from './command-catalog.js';
import { ExectlError } from './errors.js';
import { quoteForShell } from './shell-words.js';
import { DEFAULT_CMDS } from './token/permissions.js';
import { parseDuration } from './durations.js';

/** A command line ready to post, with what the client knows about it. */
export interface PreparedLine {
  /** The body of the request. */
  line: string;
  /**
   * The token scope that allows exactly this command: `ssh-key list`, `ssh web`, `frobnicate`;
   * undefined when the line does not start with a plain word (`'whoami'`).
   */
  scope: string | undefined;
  /** The catalogue path, or undefined when the client does not know the command (the server answers 404). */
  path: string | undefined;
  /** Safe to send again after a connection failure: it changes nothing on the server. */
  repeatable: boolean;
  /**
   * What a minted token must allow besides `scope`, because the command hands it on:
   * `ssh-key generate-api-key` makes a token no wider and no longer-lived than the one calling
   * it, so the request token carries the `--cmds` asked for (or the default commands) and lives
   * as long as the `--exp` asked for (or the server's 30 days). Absent: nothing.
   */
  grants?: Grants;
}

/** What a command hands on to the token it makes. */
export interface Grants {
  cmds: readonly string[];
  /** How long the token it makes may live, in seconds; null: with no end (`--exp never`). */
  lifetimeSeconds: number | null;
}

/** The command that hands on its caller's commands (SPEC §3; service: token-options.ts). */
const GRANTING_PATH = 'ssh-key generate-api-key';
/** Its `--exp` when none is given (the service's DEFAULT_EXP). */
const GRANTING_DEFAULT_EXP = '30d';

/**
 * `browser` asks for a link whose session may run exactly what the asking token may (SPEC
 * §11): so `exectl run browser` asks with a token for every command, living as long as a
 * dashboard session does (the service's SESSION_LIFETIME_MS).
 */
const SIGN_IN_PATH = 'browser';
const SIGN_IN_GRANTS: Grants = {
  cmds: COMMAND_CATALOG.map((entry) => entry.path),
  lifetimeSeconds: 12 * 3600,
};

/** Words that may spell a command path: what the service's lexer leaves unchanged. */
const PLAIN_WORD = /^[^\s'"\\]+$/;

/**
 * The run argument rule: ONE argument is already a command line and is sent as it is
 * (`exectl run "comment web 'hi there'"`); SEVERAL arguments are the words the user's shell
 * split, and each is quoted so the service's lexer gives the same words back
 * (`exectl run comment web "hi there"`).
 */
export function prepareRunLine(args: readonly string[]): PreparedLine {
  if (args.length === 1) return prepareLine(args[0]!, leadingPlainWords(args[0]!));
  return prepareLine(joinWords(args), args);
}

/**
 * `line` with its facts, where `words` are its leading words as the service will lex them (at
 * least the command path and, for `ssh`, the VM).
 */
function prepareLine(line: string, words: readonly string[]): PreparedLine {
  if (line.trim() === '') {
    throw new ExectlError('usage', 'the command line is empty', {
      hint: 'give a command, e.g. exectl run whoami',
    });
  }
  const entry = catalogPathOf(words);
  // `<group> --help` (`ssh-key --help`) needs `help`, as `help <group>` does, and changes nothing.
  const groupHelp = entry === undefined && isGroupHelp(words);
  return {
    line,
    scope: groupHelp ? 'help' : scopeOf(entry?.path, words),
    path: entry?.path,
    repeatable:
      groupHelp || (entry !== undefined && (!entry.mutates || helpRequested(entry.path, words))),
    ...(entry?.path === GRANTING_PATH
      ? { grants: { cmds: grantsAskedFor(words), lifetimeSeconds: lifetimeAskedFor(words) } }
      : {}),
    ...(entry?.path === SIGN_IN_PATH ? { grants: SIGN_IN_GRANTS } : {}),
  };
}

/** The `--cmds` values of a generate-api-key line (`--cmds a,b`, `--cmds=a,b`), else the defaults. */
function grantsAskedFor(words: readonly string[]): readonly string[] {
  const values = flagValues(words, 'cmds');
  const cmds = values.flatMap((v) => v.split(',')).map((c) => c.trim());
  return values.length === 0 ? DEFAULT_CMDS : cmds.filter((c) => c !== '');
}

/**
 * The lifetime the `--exp` of a generate-api-key line asks for (the last one given, else 30d),
 * in seconds; null for `never`. A value the service refuses counts as 0: it answers 422 anyway.
 */
function lifetimeAskedFor(words: readonly string[]): number | null {
  const text = flagValues(words, 'exp').at(-1) ?? GRANTING_DEFAULT_EXP;
  return text === 'never' ? null : (parseDuration(text) ?? 0);
}

/** The values of `--<name> V` and `--<name>=V` among `words`, in order. */
function flagValues(words: readonly string[], name: string): string[] {
  const values: string[] = [];
  words.forEach((word, i) => {
    if (word === `--${name}` && words[i + 1] !== undefined) values.push(words[i + 1]!);
    else if (word.startsWith(`--${name}=`)) values.push(word.slice(`--${name}=`.length));
  });
  return values;
}

/**
 * The words at the start of a single-argument command line, up to the first one that is quoted
 * or escaped: command paths and VM names are plain words, so these are enough to find the path
 * without a second lexer in the client. `"comment web 'a b'"` → `['comment', 'web']`.
 */
export function leadingPlainWords(line: string): string[] {
  const words: string[] = [];
  for (const word of line.split(/[ \t\n]+/)) {
    if (word === '') continue;
    if (!PLAIN_WORD.test(word)) break;
    words.push(word);
  }
  return words;
}

/**
 * The cmds entry that allows exactly this command (SPEC §1.3): its catalogue path; `ssh <vm>`
 * for a command run in one VM; for a command the client does not know, its first word (the
 * server then answers 404, which is the useful answer).
 */
function scopeOf(path: string | undefined, words: readonly string[]): string | undefined {
  if (path === 'ssh') {
    const vm = words[1];
    return vm !== undefined && !vm.startsWith('-') ? `ssh ${vm}` : 'ssh';
  }
  return path ?? words[0];
}

/** `words` name a group of commands (a path prefix that is no command itself), then `--help`. */
function isGroupHelp(words: readonly string[]): boolean {
  for (let n = words.length - 1; n > 0; n--) {
    const group = words.slice(0, n).join(' ');
    if (COMMAND_CATALOG.some((entry) => entry.path.startsWith(`${group} `))) {
      return helpRequested(group, words);
    }
  }
  return false;
}

/**
 * `--help` among the command's own flags: the service answers help and runs nothing (SPEC
 * §2). Flags end at `--`; for `ssh` they also end at the VM, after which every word belongs to
 * the remote command (`ssh web ls --help` runs `ls --help`).
 */
function helpRequested(path: string, words: readonly string[]): boolean {
  const own = words.slice(path.split(' ').length);
  const end =
    path === 'ssh' ? own.findIndex((w) => !w.startsWith('-') || w === '--') : own.indexOf('--');
  return (end < 0 ? own : own.slice(0, end)).includes('--help');
}

/** `words` as one command line that the service's lexer splits back into `words`. */
export function joinWords(words: readonly string[]): string {
  return words.map(quoteForShell).join(' ');
}

/**
 * The `/exec` command line that runs `argv` in VM `vm` with each word reaching the program
 * exactly as given (the library's `Client.ssh`). The service lexes the line, then joins the
 * words after `ssh <vm> --` with spaces and hands them to `/bin/sh -c` (SPEC §4): so each word
 * is quoted for sh first, and that text quoted again for the service's lexer. The `--` keeps a
 * first word such as `--help` from being read as a flag of `ssh` itself.
 */
export function remoteCommandLine(vm: string, argv: readonly string[]): string {
  return shellCommandLine(vm, argv.map(quoteForShell));
}

/**
 * The `/exec` command line that hands the VM's shell `words` joined by spaces, as OpenSSH's
 * `ssh host words...` does (SPEC §8: `exectl ssh web 'ls / | wc -l'` runs a pipeline). Each
 * word is quoted once, for the service's lexer only, so the VM's shell reads their join.
 */
export function shellCommandLine(vm: string, words: readonly string[]): string {
  return ['ssh', quoteForShell(vm), '--', ...words.map(quoteForShell)].join(' ');
}
