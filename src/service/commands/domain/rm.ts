import { commandFailed } from '../../../errors.js';
import { quote } from '../../rules/validate.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { findOwnVm } from '../shared/vm-access.js';

interface DomainRemovedData {
  vm_name: string;
  domain: string;
  status: 'removed';
}

/** `domain rm <vm> <domain>` — the domain no longer routes to the VM (owner only). */
export const domainRmCommand: ServiceCommand = {
  path: 'domain rm',
  description: 'Stop routing one of your domains to a VM',
  usage: 'domain rm <vm> <domain>',
  flags: [],
  args: [
    { name: 'vm', required: true },
    { name: 'domain', required: true },
  ],
  examples: ['domain rm web app.example.com'],
  mutates: true,
  async run(ctx, input) {
    const [name = '', text = ''] = input.args;
    const vm = findOwnVm(ctx, name, 'change its domains');
    // Named as `domain ls` shows it, or as it was added (`*.example.com`).
    const domain = text.toLowerCase().replace(/^\*\./, '');
    if (!ctx.deps.store.removeDomain(vm.id, domain)) {
      throw commandFailed(`vm ${quote(vm.name)} has no domain ${quote(text)}`, {
        hint: `run "domain ls ${vm.name}" to list its domains`,
      });
    }
    const data: DomainRemovedData = { vm_name: vm.name, domain, status: 'removed' };
    return json(data);
  },
};
