import { json, type ServiceCommand } from '../shared/command.js';
import { findOwnVm } from '../shared/vm-access.js';
import { vmStateData } from './vm-state-view.js';
import { resizeMachine } from '../../rules/resize-machine.js';
import { limitFlags, limitsFromFlags } from './limit-flags.js';

/** `resize <vm> [--cpu N] [--memory SIZE] [--disk SIZE]` — new limits for one's own VM. */
export const resizeCommand: ServiceCommand = {
  path: 'resize',
  description: 'Change your VM’s CPUs, memory or disk size (owner only)',
  usage: 'resize <vm> [--cpu N] [--memory SIZE] [--disk SIZE]',
  flags: limitFlags({
    cpu: 'CPUs the VM may use, e.g. 1 or 0.5',
    memory:
      'Memory limit, e.g. 512M or 4G (a bare number is GB); never below what the VM holds now',
    disk: 'Disk size, e.g. 20G (a bare number is GB); never below what the disk holds (shrinking restarts the VM)',
  }),
  args: [{ name: 'vm', required: true }],
  examples: ['resize web --memory 4G', 'resize web --cpu 1 --disk 20G'],
  mutates: true,
  async run(ctx, input) {
    const vm = findOwnVm(ctx, input.args[0] ?? '', 'resize it');
    const limits = limitsFromFlags(input.flags, vm.limits);
    await resizeMachine(ctx.deps.machines, vm, limits);
    const resized = ctx.deps.store.getVm(vm.id) ?? vm;
    return json(vmStateData(resized, await ctx.deps.machines.stat(resized)));
  },
};
