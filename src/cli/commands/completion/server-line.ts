// Completion of the command line `exectl run` sends, from the server's own `help all` answer
// (SPEC §3): command paths word by word, a command's flags as its usage shows them, and VM
// names where its usage has `<vm>` or a `--vm` flag. Pure: the listing in, what fits out.
import type { Candidate } from './answer.js';

/** One entry of `help all`: `{"name":"ssh-key list","usage":"ssh-key list","description":…}`. */
export interface ServerCommand {
  name: string;
  usage: string;
  description: string;
}

/** What fits at the word being typed: candidates, and whether VM names fit too. */
interface ServerLineAnswer {
  candidates: Candidate[];
  vms: boolean;
}

/** Flags every command accepts (SPEC §2), besides those its usage names. */
const UNIVERSAL_FLAGS: Candidate[] = [
  { word: '--help', description: 'show how to use it' },
  { word: '--json', description: 'JSON output' },
];

/** A flag in a usage: `[-l]`, `[--name N]`, `[--exp 30d|never]` (then it takes a value). */
const USAGE_FLAG = /\[(--?[a-z][a-z0-9-]*)( [^\]]+)?\]/g;

/**
 * What may follow the words `typed` of a command line, the word being typed starting with
 * `current` (candidates are not filtered by it: the caller does that for every source alike).
 */
export function completeServerLine(
  commands: readonly ServerCommand[],
  typed: readonly string[],
  current: string,
): ServerLineAnswer {
  const paths = commands.map((c) => ({ command: c, words: c.name.split(' ') }));
  // `help <path...>` completes a path, as the line itself does.
  if (typed[0] === 'help') {
    const inner = completeServerLine(commands, typed.slice(1), current);
    const all = typed.length === 1 ? [{ word: 'all', description: 'every command' }] : [];
    return {
      candidates: [...all, ...inner.candidates.filter((c) => !c.word.startsWith('-'))],
      vms: false,
    };
  }
  const next: Candidate[] = [];
  for (const { command, words } of paths) {
    if (words.length === typed.length + 1 && sameStart(words, typed)) {
      next.push({ word: words.at(-1)!, description: command.description });
    }
  }
  const own = longestPath(paths, typed);
  if (own === undefined) return { candidates: next, vms: false };
  const args = typed.slice(own.words.length);
  const flags = usageFlags(own.command.usage);
  if (current.startsWith('-')) {
    const named = flags.map((f) => ({ word: f.name, description: '' }));
    return { candidates: [...named, ...UNIVERSAL_FLAGS], vms: false };
  }
  const previous = flags.find((f) => f.name === args.at(-1));
  if (previous !== undefined && previous.takesValue) {
    return { candidates: [], vms: previous.name === '--vm' };
  }
  const placeholder = operandAt(
    operandsOf(own.command.usage, own.words.length),
    operandCount(args, flags),
  );
  return {
    candidates: args.length === 0 ? next : [],
    vms: placeholder !== undefined && /^\[?<vm>/.test(placeholder),
  };
}

/** The command whose path is the longest prefix of `typed`. */
function longestPath<T extends { words: string[] }>(
  paths: readonly T[],
  typed: readonly string[],
): T | undefined {
  let best: T | undefined;
  for (const path of paths) {
    if (path.words.length <= typed.length && sameStart(typed, path.words)) {
      if (best === undefined || path.words.length > best.words.length) best = path;
    }
  }
  return best;
}

/** `words` starts with `prefix`. */
function sameStart(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.every((w, i) => words[i] === w);
}

/** The flags a usage names, each with whether a value follows it. */
function usageFlags(usage: string): { name: string; takesValue: boolean }[] {
  return [...usage.matchAll(USAGE_FLAG)].map((m) => ({
    name: m[1]!,
    takesValue: m[2] !== undefined,
  }));
}

/** The operand placeholders of a usage after its path: `rm <vm>...` → `['<vm>...']`. */
function operandsOf(usage: string, pathLength: number): string[] {
  const words = usage
    .replace(USAGE_FLAG, ' ')
    .split(/\s+/)
    .filter((w) => w !== '');
  return words.slice(pathLength);
}

/** The placeholder of operand `index`; past the last, the last when it repeats (`<vm>...`). */
function operandAt(placeholders: readonly string[], index: number): string | undefined {
  const last = placeholders.at(-1);
  return placeholders[index] ?? (last !== undefined && /\.\.\.\]?$/.test(last) ? last : undefined);
}

/** How many operands `args` holds: words that are neither flags nor a flag's value. */
function operandCount(args: readonly string[], flags: ReturnType<typeof usageFlags>): number {
  let count = 0;
  for (let i = 0; i < args.length; i++) {
    const flag = flags.find((f) => f.name === args[i]);
    if (flag !== undefined) {
      if (flag.takesValue) i++;
    } else if (!args[i]!.startsWith('-')) count++;
  }
  return count;
}
