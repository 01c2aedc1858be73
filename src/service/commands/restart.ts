import { json, type ServiceCommand } from './shared/command.js';
import { findOwnVm } from './shared/vm-access.js';

interface RestartData {
  vm_name: string;
  status: 'restarted';
}

/**
 * `restart <vm>` — kills every process of one of the caller's VMs (background ones too); its
 * disk stays. Owner only: a user the VM is shared with may run commands in it, not restart it.
 */
export const restartCommand: ServiceCommand = {
  path: 'restart',
  description: 'Stop every process of your VM; its disk stays (owner only)',
  usage: 'restart <vm>',
  flags: [],
  args: [{ name: 'vm', required: true }],
  examples: ['restart web'],
  mutates: true,
  async run(ctx, input) {
    const vm = findOwnVm(ctx, input.args[0] ?? '', 'restart it');
    await ctx.deps.machines.restart(vm);
    const data: RestartData = { vm_name: vm.name, status: 'restarted' };
    return json(data);
  },
  renderText(data: RestartData) {
    return `restarted ${data.vm_name}\n`;
  },
};
