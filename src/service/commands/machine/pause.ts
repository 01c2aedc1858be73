import { json, type ServiceCommand } from '../shared/command.js';
import { findOwnVm } from '../shared/vm-access.js';

interface PauseData {
  vm_name: string;
  status: 'paused' | 'running';
}

/** `pause <vm>` / `resume <vm>`: freezes or thaws every process of one's own VM. */
function pauseCommand(frozen: boolean): ServiceCommand {
  const path = frozen ? 'pause' : 'resume';
  return {
    path,
    description: frozen
      ? 'Freeze every process of your VM (owner only)'
      : 'Let the processes of your paused VM run again (owner only)',
    usage: `${path} <vm>`,
    flags: [],
    args: [{ name: 'vm', required: true }],
    examples: [`${path} web`],
    mutates: true,
    async run(ctx, input) {
      const vm = findOwnVm(ctx, input.args[0] ?? '', `${path} it`);
      await ctx.deps.machines.pause(vm, frozen);
      const data: PauseData = { vm_name: vm.name, status: frozen ? 'paused' : 'running' };
      return json(data);
    },
  };
}

export const pauseVmCommand = pauseCommand(true);
export const resumeVmCommand = pauseCommand(false);
