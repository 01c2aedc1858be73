import { json, type ServiceCommand } from '../shared/command.js';
import { findVisibleVm } from '../shared/vm-access.js';
import { renderVmState, vmStateData, type VmStateData } from './vm-state-view.js';

/** `stat <vm>` — a VM's state, limits and live usage (a limit the host cannot enforce: null). */
export const statCommand: ServiceCommand = {
  path: 'stat',
  description: 'Show a VM’s state, limits and live usage',
  usage: 'stat <vm>',
  flags: [],
  args: [{ name: 'vm', required: true }],
  examples: ['stat web'],
  mutates: false,
  async run(ctx, input) {
    const vm = findVisibleVm(ctx, input.args[0] ?? '');
    return json(vmStateData(vm, await ctx.deps.machines.stat(vm)));
  },
  renderText: (data: VmStateData) => renderVmState(data),
};
