import { lexCommandLine } from '../../../shell-words.js';

/** The words that end an SSH shell session; they are the shell's own, not commands. */
const LEAVE_WORDS = new Set(['exit', 'quit']);

/** True for a line that is just `exit` or `quit` (surrounding spaces and quotes allowed). */
export function isLeaveCommand(line: string): boolean {
  try {
    const words = lexCommandLine(line);
    return words.length === 1 && LEAVE_WORDS.has(words[0]!);
  } catch {
    return false;
  }
}
