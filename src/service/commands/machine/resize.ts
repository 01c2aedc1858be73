import { commandFailed } from '../../../errors.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { quote } from '../../rules/validate.js';
import { findOwnVm } from '../shared/vm-access.js';
import { MIN_DISK, MIN_MEMORY, parseCpus, parseSize } from '../../rules/limit-values.js';
import { vmStateData } from './vm-state-view.js';
import { resizeMachine } from '../../rules/resize-machine.js';

/** A size of `--flag`, at least `min` bytes. @throws 422 naming the flag and the value. */
function sizeOf(flag: string, text: string, min: number): number {
  const bytes = parseSize(text);
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

/** `resize <vm> [--cpu N] [--memory SIZE] [--disk SIZE]` — new limits for one's own VM. */
export const resizeCommand: ServiceCommand = {
  path: 'resize',
  description: 'Change your VM’s CPUs, memory or disk size (owner only)',
  usage: 'resize <vm> [--cpu N] [--memory SIZE] [--disk SIZE]',
  flags: [
    { name: 'cpu', type: 'string', description: 'CPUs the VM may use, e.g. 1 or 0.5' },
    {
      name: 'memory',
      type: 'string',
      description: 'Memory limit, e.g. 512M or 4G; never below what the VM holds now',
    },
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
      ...(cpu === undefined ? {} : { cpus: cpusOf(cpu) }),
      ...(memory === undefined ? {} : { memoryBytes: sizeOf('memory', memory, MIN_MEMORY) }),
      ...(disk === undefined ? {} : { diskBytes: sizeOf('disk', disk, MIN_DISK) }),
    };
    await resizeMachine(ctx.deps.machines, vm, limits);
    const resized = ctx.deps.store.getVm(vm.id) ?? vm;
    return json(vmStateData(resized, await ctx.deps.machines.stat(resized)));
  },
};
