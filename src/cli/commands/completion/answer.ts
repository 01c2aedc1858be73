// The answer to `exectl __complete WORDS...`: what may be typed at the last word, from one
// place for every shell. exectl's own commands and flags come from the commander tree, fixed
// value sets from the flags' declarations, the rest from the server (through `sources`).
import { locate, type Position } from './locate.js';
import type { CompletionModel } from './model.js';
import { completeServerLine, type ServerCommand } from './server-line.js';

/** One word that may be typed, and what it is (shown by zsh and fish; may be ''). */
export interface Candidate {
  word: string;
  description: string;
}

/** `files`: the shell completes file names itself; else exactly `candidates`. */
export interface Answer {
  files: boolean;
  candidates: Candidate[];
}

/** A VM as `ls` lists it. */
export interface VmEntry {
  name: string;
  status: string;
}

/** What completion asks beyond exectl itself; undefined when it cannot be known now. */
export interface CompletionSources {
  /** The server's `help all`. */
  serverCommands(): Promise<readonly ServerCommand[] | undefined>;
  /** The VMs the server's `ls` lists. */
  vms(): Promise<readonly VmEntry[] | undefined>;
  /** The profile names of the config file. */
  profiles(): readonly string[];
}

const NOTHING: Answer = { files: false, candidates: [] };

/**
 * What may be typed at the last of `words` (the words after the program; the last is being
 * typed), among those starting with it.
 */
export async function completionAnswer(
  model: CompletionModel,
  words: readonly string[],
  sources: (globals: { url?: string; profile?: string }) => CompletionSources,
): Promise<Answer> {
  const { position, globals } = locate(model, words);
  const answer = await answerAt(position, words.at(-1) ?? '', () => sources(globals));
  if (answer.files) return answer;
  const current = words.at(-1) ?? '';
  const seen = new Set<string>();
  const candidates = answer.candidates.filter((c) => {
    // A word with a space, tab or newline in it would break the shells' line protocol.
    if (!c.word.startsWith(current) || /\s/.test(c.word) || seen.has(c.word)) return false;
    seen.add(c.word);
    return true;
  });
  return { files: false, candidates };
}

async function answerAt(
  position: Position,
  current: string,
  sources: () => CompletionSources,
): Promise<Answer> {
  switch (position.kind) {
    case 'flag':
      return {
        files: false,
        candidates: position.command.flags.flatMap((f) =>
          [f.long, f.short]
            .filter((n): n is string => n !== undefined)
            .map((word) => ({ word, description: f.description })),
        ),
      };
    case 'value': {
      const { flag } = position;
      if (flag.values !== undefined) return words(flag.values);
      if (flag.long === '--profile') return words(sources().profiles());
      return flag.fileValue ? { files: true, candidates: [] } : NOTHING;
    }
    case 'word':
      return {
        files: false,
        candidates: [
          ...position.command.subcommands.map((s) => ({
            word: s.name,
            description: s.description,
          })),
          ...position.command.choices.map((word) => ({ word, description: '' })),
        ],
      };
    case 'vm':
      return vmAnswer(sources());
    case 'profile':
      return words(sources().profiles());
    case 'server': {
      const from = sources();
      const commands = await from.serverCommands();
      if (commands === undefined) return NOTHING;
      const line = completeServerLine(commands, position.typed, current);
      const vms = line.vms ? (await vmAnswer(from)).candidates : [];
      return { files: false, candidates: [...line.candidates, ...vms] };
    }
    case 'files':
      return { files: true, candidates: [] };
    case 'nothing':
      return NOTHING;
  }
}

async function vmAnswer(sources: CompletionSources): Promise<Answer> {
  const vms = (await sources.vms()) ?? [];
  return { files: false, candidates: vms.map((vm) => ({ word: vm.name, description: vm.status })) };
}

function words(list: readonly string[]): Answer {
  return { files: false, candidates: list.map((word) => ({ word, description: '' })) };
}

/**
 * The answer as `exectl __complete` prints it: a first line `files` or `words`, then one line
 * per candidate, `word<TAB>description`.
 */
export function formatAnswer(answer: Answer): string {
  if (answer.files) return 'files\n';
  const lines = answer.candidates.map((c) => `${c.word}\t${oneLine(c.description)}\n`);
  return `words\n${lines.join('')}`;
}

function oneLine(text: string): string {
  return text.replace(/[\t\r\n]+/g, ' ');
}
