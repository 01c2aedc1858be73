// `--cpu`, `--memory` and `--disk` as `new` and `resize` take them: sizes as the real service
// writes them (`4`, `4G`, `4GB`, `512M`; a bare number is GiB), each error naming its flag.
import { commandFailed } from '../../../errors.js';
import type { FlagSpec } from '../../dispatch/types.js';
import type { FlagValues } from '../../dispatch/flag-values.js';
import { quote } from '../../rules/validate.js';
import { MIN_DISK, MIN_MEMORY, parseCpus, parseSize } from '../../rules/limit-values.js';
import type { VmLimitsRecord } from '../../store/index.js';

/** The three flags, each with its own line for `--help`. */
export function limitFlags(descriptions: {
  cpu: string;
  memory: string;
  disk: string;
}): FlagSpec[] {
  return [
    { name: 'cpu', type: 'string', description: descriptions.cpu },
    { name: 'memory', type: 'string', description: descriptions.memory },
    { name: 'disk', type: 'string', description: descriptions.disk },
  ];
}

/** `base` with each limit flag given applied. @throws 422 naming the flag and the value. */
export function limitsFromFlags(flags: FlagValues, base: VmLimitsRecord): VmLimitsRecord {
  const [cpu, memory, disk] = [flags.string('cpu'), flags.string('memory'), flags.string('disk')];
  return {
    ...base,
    ...(cpu === undefined ? {} : { cpus: cpusOf(cpu) }),
    ...(memory === undefined ? {} : { memoryBytes: sizeOf('memory', memory, MIN_MEMORY) }),
    ...(disk === undefined ? {} : { diskBytes: sizeOf('disk', disk, MIN_DISK) }),
  };
}

/** A size of `--flag`, at least `min` bytes; a bare number is GiB (`--memory=4`). */
function sizeOf(flag: string, text: string, min: number): number {
  const bytes = parseSize(/^\s*\d+\s*$/.test(text) ? `${text.trim()}G` : text);
  if (bytes === null) {
    throw commandFailed(`invalid --${flag} ${quote(text)}: expected a size such as 512M or 4G`);
  }
  if (bytes < min) {
    throw commandFailed(`--${flag} ${quote(text)} is too small: at least ${min / 2 ** 20}M`);
  }
  return bytes;
}

function cpusOf(text: string): number {
  const cpus = parseCpus(text);
  if (cpus === null) {
    throw commandFailed(`invalid --cpu ${quote(text)}: expected a number of CPUs such as 1 or 0.5`);
  }
  return cpus;
}
