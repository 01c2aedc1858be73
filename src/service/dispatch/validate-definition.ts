import type { CommandDefinition, FlagSpec } from './types.js';

/** A command path word: what a user can type bare, starting with a letter. */
const PATH_WORD = /^[a-z][a-z0-9-]*$/;
const LONG_FLAG = /^[a-z][a-z0-9-]+$/;
const SHORT_FLAG = /^[A-Za-z]$/;
/** Accepted by every command; declaring them would shadow the universal meaning. */
const RESERVED_FLAGS = new Set(['help', 'json']);

/**
 * The words of a command path, or a thrown Error when the path is not a clean, single-spaced
 * list of words (`'ssh-key list'`).
 */
export function pathWords(path: string): string[] {
  const words = path.split(' ');
  if (!words.every((w) => PATH_WORD.test(w))) {
    throw new Error(`invalid command path "${path}": lowercase words separated by one space`);
  }
  return words;
}

/**
 * Checks what the parser and help rely on, at registration time, so a malformed definition
 * fails when the service starts rather than on some user's request. Throws a plain Error.
 */
export function validateDefinition(def: CommandDefinition<unknown>): void {
  const problem = findProblem(def);
  if (problem !== undefined) throw new Error(`command "${def.path}": ${problem}`);
}

function findProblem(def: CommandDefinition<unknown>): string | undefined {
  const longs = new Set<string>();
  const shorts = new Set<string>();
  for (const flag of def.flags) {
    if (!LONG_FLAG.test(flag.name)) return `invalid flag name "${flag.name}"`;
    if (RESERVED_FLAGS.has(flag.name)) return `--${flag.name} is accepted by every command`;
    if (longs.has(flag.name)) return `flag --${flag.name} declared twice`;
    longs.add(flag.name);
    if (flag.short !== undefined) {
      if (!SHORT_FLAG.test(flag.short)) return `invalid short flag "${flag.short}"`;
      if (shorts.has(flag.short)) return `short flag -${flag.short} declared twice`;
      shorts.add(flag.short);
    }
    if (!defaultMatchesType(flag)) return `default of --${flag.name} does not fit ${flag.type}`;
    if (flag.commaList === true && flag.type !== 'string[]') {
      return `only a string[] flag may be a comma list (--${flag.name})`;
    }
  }
  let optionalSeen = false;
  for (const [index, arg] of def.args.entries()) {
    const last = index === def.args.length - 1;
    if (arg.required && optionalSeen) return `required <${arg.name}> follows an optional argument`;
    if (!arg.required) optionalSeen = true;
    if (arg.variadic && !last) return `only the last argument may be variadic`;
    if (arg.raw && !(last && arg.variadic)) return `only a last, variadic argument may be raw`;
  }
  return undefined;
}

function defaultMatchesType(flag: FlagSpec): boolean {
  const value = flag.default;
  if (value === undefined) return true;
  if (flag.type === 'boolean') return value === false;
  if (flag.type === 'string') return typeof value === 'string';
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}
