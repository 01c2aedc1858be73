import { commandFailed } from '../../errors.js';
import { json, type ServiceCommand } from './shared/command.js';
import { findOwnVm } from './shared/vm-access.js';

interface RestartData {
  vm_name: string;
  status: 'restarted';
}

/**
 * `restart <vm>` — reboots one of the caller's VMs: every process (background ones too) is
 * killed, its disk stays, it boots again and its `/etc/rc.local` runs. The VM is `running`
 * afterwards (a `failed` or `stopped` one too). Owner only: a user the VM is shared with may
 * run commands in it, not restart it. Refused while its setup script runs.
 */
export const restartCommand: ServiceCommand = {
  path: 'restart',
  description:
    'Reboot your VM: every process stops, its disk stays, /etc/rc.local runs again (owner only)',
  usage: 'restart <vm>',
  flags: [],
  args: [{ name: 'vm', required: true }],
  examples: ['restart web'],
  mutates: true,
  async run(ctx, input) {
    const vm = findOwnVm(ctx, input.args[0] ?? '', 'restart it');
    if (vm.status === 'creating') {
      throw commandFailed(`vm "${vm.name}" is still being created`, {
        hint: `its setup script is running: restart it once "stat ${vm.name}" shows it running`,
      });
    }
    await ctx.deps.machines.restart(vm);
    const data: RestartData = { vm_name: vm.name, status: 'restarted' };
    return json(data);
  },
};
