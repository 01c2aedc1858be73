import { json, type ServiceCommand } from './shared/command.js';
import { checkVmName } from '../rules/validate.js';
import { findOwnVm } from './shared/vm-access.js';

interface RenameData {
  vm_name: string;
  old_name: string;
}

/**
 * `rename <vm> <new>` — owner only. The VM keeps its emoji, disk, tags, shares and `vm:`
 * attachments; its address changes to the new name. Renaming to the same name changes nothing.
 */
export const renameCommand: ServiceCommand = {
  path: 'rename',
  description: 'Rename one of your VMs (owner only); its address follows the new name',
  usage: 'rename <vm> <new>',
  flags: [],
  args: [
    { name: 'vm', required: true },
    { name: 'new', required: true },
  ],
  examples: ['rename brave-otter web'],
  mutates: true,
  async run(ctx, input) {
    const [oldName = '', newName = ''] = input.args;
    const vm = findOwnVm(ctx, oldName, 'rename it');
    checkVmName(newName);
    // The store's rename moves `vm:<old>` attachments to `vm:<new>` then drops what is left at
    // `vm:<old>`: with old === new that would drop them all, so same-name is answered here.
    if (newName !== vm.name) ctx.deps.store.renameVm(vm.id, newName);
    const data: RenameData = { vm_name: newName, old_name: vm.name };
    return json(data);
  },
};
