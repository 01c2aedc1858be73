import { vmDomainOf } from '../../config.js';
import { parseCustomDomain } from '../../rules/custom-domain.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { findOwnVm } from '../shared/vm-access.js';

interface DomainAddedData {
  vm_name: string;
  domain: string;
  wildcard: boolean;
  status: 'added';
  /** The emulator resolves nothing: pointing the name at the server is the user's DNS. */
  dns: 'not checked';
}

/**
 * `domain add [--wildcard] <vm> <domain>` — the VM proxy routes `Host: <domain>` (with a
 * wildcard, every name under it too) to the VM exactly as its own name. Owner only; a domain
 * belongs to one VM.
 */
export const domainAddCommand: ServiceCommand = {
  path: 'domain add',
  description: 'Route a domain of your own (or, with --wildcard, every name under it) to a VM',
  usage: 'domain add [--wildcard] <vm> <domain>',
  flags: [
    {
      name: 'wildcard',
      type: 'boolean',
      description: 'Also every name under the domain (as writing "*." in front of it)',
    },
  ],
  args: [
    { name: 'vm', required: true },
    { name: 'domain', required: true },
  ],
  examples: ['domain add web app.example.com', 'domain add --wildcard web example.com'],
  mutates: true,
  async run(ctx, input) {
    const [name = '', text = ''] = input.args;
    const { config, store } = ctx.deps;
    const vm = findOwnVm(ctx, name, 'change its domains');
    const { domain, wildcard } = parseCustomDomain(text, input.flags.boolean('wildcard'), [
      config.domain,
      vmDomainOf(config),
    ]);
    store.addDomain(vm.id, domain, wildcard);
    const data: DomainAddedData = {
      vm_name: vm.name,
      domain,
      wildcard,
      status: 'added',
      dns: 'not checked',
    };
    return json(data);
  },
};
