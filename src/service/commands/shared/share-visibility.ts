import type { Visibility } from '../../store/index.js';
import { json, type ServiceCommand } from './command.js';
import { findOwnVm } from './vm-access.js';

interface VisibilityData {
  vm_name: string;
  visibility: Visibility;
}

/**
 * `share set-public <vm>` and `share set-private <vm>`, which differ only in the visibility
 * they set. Owner only. A public VM's address answers anyone; a private one needs a VM token.
 */
export function visibilityCommand(visibility: Visibility, description: string): ServiceCommand {
  return {
    path: `share set-${visibility}`,
    description,
    usage: `share set-${visibility} <vm>`,
    flags: [],
    args: [{ name: 'vm', required: true }],
    examples: [`share set-${visibility} web`],
    mutates: true,
    async run(ctx, input) {
      const vm = findOwnVm(ctx, input.args[0] ?? '', 'change its sharing');
      const updated = ctx.deps.store.setVisibility(vm.id, visibility);
      const data: VisibilityData = { vm_name: updated.name, visibility: updated.visibility };
      return json(data);
    },
    renderText(data: VisibilityData) {
      return `${data.vm_name} is ${data.visibility}\n`;
    },
  };
}
