import { commandFailed } from '../../../errors.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { quote } from '../../rules/validate.js';
import { findOwnVm } from '../shared/vm-access.js';
import { vmStateData } from './vm-state-view.js';

const UNITS: Record<string, number> = { '': 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 };
const SIZE = /^([1-9]\d{0,15})([KMGT]?)i?B?$/i;
// Below these a VM cannot do its own work (an ext4 journal alone takes 4 MiB).
export const MIN_MEMORY = 32 * 2 ** 20;
export const MIN_DISK = 64 * 2 ** 20;
export const MAX_CPUS = 1024;

/**
 * A size as `resize` takes it: a whole number with an optional unit K, M, G or T (powers of
 * 1024; `512M`, `4G`, `4GiB`), at least `min` bytes.
 * @throws 422 naming the flag and the value.
 */
function parseSize(flag: string, text: string, min: number): number {
  const match = SIZE.exec(text.trim());
  const bytes = match === null ? NaN : Number(match[1]) * UNITS[match[2]!.toUpperCase()]!;
  if (!Number.isSafeInteger(bytes)) {
    throw commandFailed(`invalid --${flag} ${quote(text)}: expected a size such as 512M or 4G`);
  }
  if (bytes < min) {
    throw commandFailed(`--${flag} ${quote(text)} is too small: at least ${min / 2 ** 20}M`);
  }
  return bytes;
}

function parseCpus(text: string): number {
  const cpus = /^\d+(\.\d{1,2})?$/.test(text.trim()) ? Number(text) : NaN;
  if (!(cpus >= 0.01 && cpus <= MAX_CPUS)) {
    throw commandFailed(`invalid --cpu ${quote(text)}: expected a number of CPUs such as 1 or 0.5`);
  }
  return cpus;
}

/** `resize <vm> [--cpu N] [--memory SIZE] [--disk SIZE]` — new limits for one's own VM. */
export const resizeCommand: ServiceCommand = {
  path: 'resize',
  description: 'Change your VM’s CPUs, memory or disk size (owner only)',
  usage: 'resize <vm> [--cpu N] [--memory SIZE] [--disk SIZE]',
  flags: [
    { name: 'cpu', type: 'string', description: 'CPUs the VM may use, e.g. 1 or 0.5' },
    { name: 'memory', type: 'string', description: 'Memory limit, e.g. 512M or 4G' },
    {
      name: 'disk',
      type: 'string',
      description:
        'Disk size, e.g. 20G; never below what the disk holds (shrinking restarts the VM)',
    },
  ],
  args: [{ name: 'vm', required: true }],
  examples: ['resize web --memory 4G', 'resize web --cpu 1 --disk 20G'],
  mutates: true,
  async run(ctx, input) {
    const { flags } = input;
    const vm = findOwnVm(ctx, input.args[0] ?? '', 'resize it');
    const [cpu, memory, disk] = [flags.string('cpu'), flags.string('memory'), flags.string('disk')];
    const limits = {
      ...vm.limits,
      ...(cpu === undefined ? {} : { cpus: parseCpus(cpu) }),
      ...(memory === undefined ? {} : { memoryBytes: parseSize('memory', memory, MIN_MEMORY) }),
      ...(disk === undefined ? {} : { diskBytes: parseSize('disk', disk, MIN_DISK) }),
    };
    await ctx.deps.machines.resize(vm, limits);
    const resized = ctx.deps.store.getVm(vm.id) ?? vm;
    return json(vmStateData(resized, await ctx.deps.machines.stat(resized)));
  },
};
