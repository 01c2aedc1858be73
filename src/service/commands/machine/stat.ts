import { json, type ServiceCommand } from '../shared/command.js';
import { findVisibleVm } from '../shared/vm-access.js';
import { liveStatus, vmStateData } from './vm-state-view.js';

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
    const state = await ctx.deps.machines.stat(vm);
    // A VM found stopped here is stored so, for `ls` too (the runtime's report may lag).
    if (liveStatus(vm, state) === 'stopped' && vm.status === 'running') {
      ctx.deps.store.setStatusIf(vm.id, ['running'], 'stopped');
    }
    return json(vmStateData(vm, state));
  },
};
