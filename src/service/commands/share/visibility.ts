import type { Visibility } from '../../store/index.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { findOwnVm } from '../shared/vm-access.js';

interface VisibilityData {
  vm_name: string;
  visibility: Visibility;
}

/**
 * `share set-public <vm>` and `share set-private <vm>`, which differ only in the visibility
 * they set. Owner only. A public VM's address answers anyone; a private one needs a VM token.
 */
function visibilityCommand(visibility: Visibility, description: string): ServiceCommand {
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
  };
}

/** `share set-public <vm>` — anyone may open the VM's address, no token needed (owner only). */
export const shareSetPublicCommand = visibilityCommand(
  'public',
  "Let anyone open your VM's address without a token (owner only)",
);

/** `share set-private <vm>` — the VM's address needs a VM token again (owner only). */
export const shareSetPrivateCommand = visibilityCommand(
  'private',
  "Require a VM token for your VM's address again (owner only)",
);
