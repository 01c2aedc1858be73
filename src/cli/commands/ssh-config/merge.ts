// How `exectl ssh-config --write` changes the files it shares with the user: its block in
// `~/.ssh/config` (between the markers, as `coder config-ssh` does) and its lines in exectl's
// known-hosts file, every other line kept byte for byte.
import { BEGIN_MARKER, END_MARKER } from './blocks.js';

/**
 * `config` with its marked block replaced by `block` (itself marked), or `block` added at the
 * end when there is none; every line outside the markers stays as it was.
 *
 * @throws Error when the markers are not one begin line followed by one end line (a hand edit
 *   the user must settle: exectl will not guess which lines are its own).
 */
export function withBlock(config: string, block: string): string {
  const lines = config.split('\n');
  const begins = indexesOf(lines, BEGIN_MARKER);
  const ends = indexesOf(lines, END_MARKER);
  if (begins.length === 0 && ends.length === 0) {
    if (config === '') return block;
    return `${config}${config.endsWith('\n') ? '' : '\n'}\n${block}`;
  }
  const [begin] = begins;
  const [end] = ends;
  if (begins.length !== 1 || ends.length !== 1 || end! < begin!) {
    throw new Error(`the lines "${BEGIN_MARKER}" and "${END_MARKER}" are not one pair`);
  }
  const before = lines.slice(0, begin).map((line) => `${line}\n`);
  const after = lines.slice(end! + 1).join('\n');
  return `${before.join('')}${block}${after}`;
}

/**
 * `knownHosts` with every line for one of `entries`' host names replaced by that entry; lines
 * for other hosts (other servers, other ports) stay.
 */
export function withKnownHosts(knownHosts: string, entries: ReadonlyMap<string, string>): string {
  const kept = knownHosts
    .split('\n')
    .filter((line) => line !== '' && !entries.has(line.split(' ', 1)[0]!));
  const added = [...entries].map(([host, key]) => `${host} ${key}`);
  return [...kept, ...added].map((line) => `${line}\n`).join('');
}

function indexesOf(lines: readonly string[], marker: string): number[] {
  return lines.flatMap((line, i) => (line.trimEnd() === marker ? [i] : []));
}
