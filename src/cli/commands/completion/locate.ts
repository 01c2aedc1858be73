// Where the word being completed stands in an exectl command line: which command it belongs
// to and what may be typed there. Pure: the words typed so far in, a position out.
import type { CompletionCommand, CompletionFlag, CompletionModel } from './model.js';

/** What may be typed at the word being completed. */
export type Position =
  /** A flag of `command`. */
  | { kind: 'flag'; command: CompletionCommand }
  /** The value of `flag`. */
  | { kind: 'value'; flag: CompletionFlag }
  /** A subcommand of `command` or one of its argument choices. */
  | { kind: 'word'; command: CompletionCommand }
  /** The VM of `exectl ssh`. */
  | { kind: 'vm' }
  /** A profile of the config file (`exectl profile use|remove`). */
  | { kind: 'profile' }
  /** A word of the command line `exectl run` sends; `typed` are the line's words before it. */
  | { kind: 'server'; typed: string[] }
  | { kind: 'files' }
  | { kind: 'nothing' };

interface Location {
  position: Position;
  /** `--url` and `--profile` as typed on the line: completion asks the server they name. */
  globals: { url?: string; profile?: string };
}

/**
 * Locates the last of `words` (the words after the program, the last one being typed, maybe
 * ''). Flags and their values are skipped as commander reads them; the first word that names
 * no subcommand is the command's first operand.
 */
export function locate(model: CompletionModel, words: readonly string[]): Location {
  const typed = words.slice(0, -1);
  const current = words.at(-1) ?? '';
  const globals: Location['globals'] = {};
  let command = model.commands[0]!;
  let operands: string[] | undefined;
  for (let i = 0; i < typed.length; i++) {
    const word = typed[i]!;
    if (word === '--') {
      operands = typed.slice(i + 1);
      break;
    }
    if (word.startsWith('-') && word !== '-') {
      if (word.includes('=')) continue; // --url=x carries its value
      const flag = command.flags.find((f) => f.long === word || f.short === word);
      if (flag === undefined || !flag.takesValue) continue;
      if (i + 1 === typed.length) return { position: { kind: 'value', flag }, globals };
      if (flag.long === '--url') globals.url = typed[i + 1];
      if (flag.long === '--profile') globals.profile = typed[i + 1];
      i++;
      continue;
    }
    const sub = command.subcommands.some((s) => s.name === word)
      ? model.commands.find((c) => sameWords(c.path, [...command.path, word]))
      : undefined;
    if (sub === undefined) {
      operands = typed.slice(i);
      break;
    }
    command = sub;
  }
  return { position: positionIn(command, operands, current), globals };
}

/** The commands whose one operand is a profile that exists. */
const PROFILE_OPERAND: ReadonlySet<string> = new Set(['profile use', 'profile remove']);

function positionIn(
  command: CompletionCommand,
  operands: readonly string[] | undefined,
  current: string,
): Position {
  const key = command.path.join(' ');
  if (key === 'run' && (operands !== undefined || !current.startsWith('-'))) {
    return { kind: 'server', typed: [...(operands ?? [])] };
  }
  if (operands === undefined && current.startsWith('-')) return { kind: 'flag', command };
  if (key === 'ssh') return (operands ?? []).length === 0 ? { kind: 'vm' } : { kind: 'nothing' };
  if (PROFILE_OPERAND.has(key)) {
    return (operands ?? []).length === 0 ? { kind: 'profile' } : { kind: 'nothing' };
  }
  if (operands !== undefined && operands.length > 0) return { kind: 'nothing' };
  if (command.subcommands.length > 0 || command.choices.length > 0) {
    return { kind: 'word', command };
  }
  return command.takesArgs ? { kind: 'files' } : { kind: 'nothing' };
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((w, i) => w === b[i]);
}
